#!/usr/bin/env python3
"""Generates the entries appended to catalog/gpus.toml below the "consumer, workstation and
older datacenter parts" line, from the compact table in this file. Run from the repository root:
    python3 scripts/catalog/gen_gpus.py > new-entries.toml
Each row: id, name, vendor, aliases, memory GiB, bandwidth GB/s, figures, sources, note.
Sources: the page that publishes the figure. "[recall]" marks a figure as published at that page
but not re-read when this table was written; "derived" says how a figure was computed."""

import re

# --- source strings -------------------------------------------------------------------------
GF10 = "NVIDIA GeForce GTX 10-series spec pages (https://www.nvidia.com/en-us/geforce/10-series/) [recall]"
GF16 = "NVIDIA GeForce GTX 16-series spec pages (https://www.nvidia.com/en-us/geforce/graphics-cards/gtx-1660-super/) [recall]"
GF20 = "NVIDIA GeForce RTX 20-series spec pages (https://www.nvidia.com/en-us/geforce/20-series/) [recall]"
GF30 = "NVIDIA GeForce RTX 30-series spec pages (https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/) [recall]"
GF40 = "NVIDIA GeForce RTX 40-series spec pages (https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/) [recall]"
GF50 = "NVIDIA GeForce RTX 50-series spec pages (https://www.nvidia.com/en-us/geforce/graphics-cards/50-series/) [recall]"
TU_WP = "NVIDIA Turing architecture whitepaper (https://images.nvidia.com/aem-dam/en-zz/Solutions/design-visualization/technologies/turing-architecture/NVIDIA-Turing-Architecture-Whitepaper.pdf)"
GA_WP = "NVIDIA Ampere GA102 whitepaper (https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf)"
AD_WP = "NVIDIA Ada Lovelace architecture whitepaper (https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf)"
GB_WP = "NVIDIA RTX Blackwell GPU architecture whitepaper (https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf)"
TC512 = ("derived: SMs {sm} x boost {mhz} MHz x 512 FLOP/clk/SM (dense FP16 with FP32 accumulate on GeForce, "
         "half the FP16-accumulate rate; the per-SM rate of the {wp}); SM count and boost clock from the {pages}")
WS1024 = ("derived: SMs {sm} x boost {mhz} MHz x 1024 FLOP/clk/SM (dense FP16 with FP32 accumulate, full rate on "
          "workstation parts; {wp}); SM count and boost clock from the {pages}")
NVWS = "NVIDIA RTX professional GPU datasheets (https://www.nvidia.com/en-us/design-visualization/desktop-graphics/) [recall]"
NVQ = "NVIDIA Quadro datasheets (https://www.nvidia.com/en-us/design-visualization/quadro/) [recall]"
NVDC = "NVIDIA data center GPU datasheet ({url}) [recall]"
AMD_RX = "AMD Radeon RX product specifications (https://www.amd.com/en/products/specifications/graphics.html) [recall]"
AMD_PRO = "AMD Radeon PRO product specifications (https://www.amd.com/en/products/specifications/professional-graphics.html) [recall]"
AMD_MI = "AMD Instinct accelerator specifications (https://www.amd.com/en/products/specifications/accelerators.html) [recall]"
INTEL = "Intel Arc product specifications, Intel ARK (https://www.intel.com/content/www/us/en/products/details/discrete-gpus/arc.html) [recall]"
APPLE = "Apple newsroom announcement of the chip ({url}) [recall]"

rows = []

def gpu(id, name, vendor, aliases, mem, mem_src, bw, bw_src, bf16=None, bf16_src=None,
        fp8=None, fp8_src=None, fp4=None, fp4_src=None, fp32=None, fp32_src=None, note=None):
    rows.append(dict(id=id, name=name, vendor=vendor, aliases=aliases, mem=(mem, mem_src),
                     bw=(bw, bw_src), bf16=(bf16, bf16_src), fp8=(fp8, fp8_src), fp4=(fp4, fp4_src),
                     fp32=(fp32, fp32_src), note=note))

def r1(x):
    return round(x, 1)

def smi(name):
    """The name nvidia-smi and DCGM's modelName report for a GeForce/RTX card (no memory size)."""
    return "NVIDIA " + re.sub(r" \d+GB$", "", name)

# --- NVIDIA GeForce Pascal and Turing GTX 16: no tensor cores --------------------------------
PASCAL_NOTE = "No tensor cores and no fast FP16: llama.cpp runs FP32 or int8 dp4a kernels, so the FP32 rate is the prefill proxy."
def gf_vec(id, name, al, mem, bw, bwhow, cores, mhz, pages, note=PASCAL_NOTE):
    fp32 = r1(cores * mhz * 2 / 1e6)
    gpu(id, name, "NVIDIA", al + [smi(name)], mem, f"{pages}: {mem} GB", bw, f"{pages}: {bwhow}",
        fp32=fp32, fp32_src=f"derived: {cores} CUDA cores x boost {mhz} MHz x 2 FLOP/clk ({pages})", note=note)

gf_vec("gtx-1050-ti", "GeForce GTX 1050 Ti", ["GTX 1050 Ti", "1050 Ti"], 4, 112, "7 Gbps GDDR5 x 128-bit = 112 GB/s", 768, 1392, GF10)
gf_vec("gtx-1060-6gb", "GeForce GTX 1060 6GB", ["GTX 1060 6GB", "GTX 1060"], 6, 192, "8 Gbps GDDR5 x 192-bit = 192 GB/s", 1280, 1708, GF10)
gf_vec("gtx-1070", "GeForce GTX 1070", ["GTX 1070", "1070"], 8, 256, "8 Gbps GDDR5 x 256-bit = 256 GB/s", 1920, 1683, GF10)
gf_vec("gtx-1070-ti", "GeForce GTX 1070 Ti", ["GTX 1070 Ti", "1070 Ti"], 8, 256, "8 Gbps GDDR5 x 256-bit = 256 GB/s", 2432, 1683, GF10)
gf_vec("gtx-1080", "GeForce GTX 1080", ["GTX 1080", "1080"], 8, 320, "10 Gbps GDDR5X x 256-bit = 320 GB/s", 2560, 1733, GF10)
gf_vec("gtx-1080-ti", "GeForce GTX 1080 Ti", ["GTX 1080 Ti", "1080 Ti"], 11, 484, "11 Gbps GDDR5X x 352-bit = 484 GB/s", 3584, 1582, GF10)
gf_vec("titan-xp", "TITAN Xp", ["Titan Xp", "NVIDIA TITAN Xp"], 12, 547.7, "11.4 Gbps GDDR5X x 384-bit = 547.7 GB/s", 3840, 1582, GF10)
T16 = "Turing without tensor cores (GTX 16): FP16 runs on the shader cores, so the FP32 rate is the prefill proxy."
gf_vec("gtx-1650", "GeForce GTX 1650", ["GTX 1650", "1650"], 4, 128, "8 Gbps GDDR5 x 128-bit = 128 GB/s", 896, 1665, GF16, T16)
gf_vec("gtx-1660", "GeForce GTX 1660", ["GTX 1660", "1660"], 6, 192, "8 Gbps GDDR5 x 192-bit = 192 GB/s", 1408, 1785, GF16, T16)
gf_vec("gtx-1660-super", "GeForce GTX 1660 SUPER", ["GTX 1660 Super", "1660 Super"], 6, 336, "14 Gbps GDDR6 x 192-bit = 336 GB/s", 1408, 1785, GF16, T16)
gf_vec("gtx-1660-ti", "GeForce GTX 1660 Ti", ["GTX 1660 Ti", "1660 Ti"], 6, 288, "12 Gbps GDDR6 x 192-bit = 288 GB/s", 1536, 1770, GF16, T16)

# --- NVIDIA GeForce RTX (tensor cores) ----------------------------------------------------------
def gf_rtx(id, name, al, mem, bw, bwhow, sm, mhz, pages, wp, fp8=False, note=None, smi_name=True):
    bf16 = r1(sm * mhz * 512 / 1e6)
    extra = {}
    if fp8:
        extra = dict(fp8=r1(bf16 * 2), fp8_src=f"derived: twice the FP16/FP32-accumulate rate (FP8 with FP32 accumulate, {wp})")
    gpu(id, name, "NVIDIA", al + ([smi(name.split(' (')[0])] if smi_name else []), mem, f"{pages}: {mem} GB",
        bw, f"{pages}: {bwhow}", bf16=bf16, bf16_src=TC512.format(sm=sm, mhz=mhz, wp=wp, pages=pages), note=note, **extra)

gf_rtx("rtx-2060", "GeForce RTX 2060", ["RTX 2060", "2060"], 6, 336, "14 Gbps GDDR6 x 192-bit = 336 GB/s", 30, 1680, GF20, TU_WP)
gf_rtx("rtx-2060-super", "GeForce RTX 2060 SUPER", ["RTX 2060 Super", "2060 Super"], 8, 448, "14 Gbps GDDR6 x 256-bit = 448 GB/s", 34, 1650, GF20, TU_WP)
gf_rtx("rtx-2070", "GeForce RTX 2070", ["RTX 2070", "2070"], 8, 448, "14 Gbps GDDR6 x 256-bit = 448 GB/s", 36, 1620, GF20, TU_WP)
gf_rtx("rtx-2070-super", "GeForce RTX 2070 SUPER", ["RTX 2070 Super", "2070 Super"], 8, 448, "14 Gbps GDDR6 x 256-bit = 448 GB/s", 40, 1770, GF20, TU_WP)
gf_rtx("rtx-2080", "GeForce RTX 2080", ["RTX 2080", "2080"], 8, 448, "14 Gbps GDDR6 x 256-bit = 448 GB/s", 46, 1710, GF20, TU_WP)
gf_rtx("rtx-2080-super", "GeForce RTX 2080 SUPER", ["RTX 2080 Super", "2080 Super"], 8, 496, "15.5 Gbps GDDR6 x 256-bit = 496 GB/s", 48, 1815, GF20, TU_WP)
gf_rtx("rtx-2080-ti", "GeForce RTX 2080 Ti", ["RTX 2080 Ti", "2080 Ti"], 11, 616, "14 Gbps GDDR6 x 352-bit = 616 GB/s", 68, 1545, GF20, TU_WP)
gpu("titan-rtx", "TITAN RTX", "NVIDIA", ["Titan RTX", "NVIDIA TITAN RTX"], 24, f"{GF20}: 24 GB GDDR6", 672, f"{GF20}: 14 Gbps GDDR6 x 384-bit = 672 GB/s",
    bf16=130.5, bf16_src=f"{TU_WP}: TITAN RTX 130.5 TFLOPS FP16 tensor with FP32 accumulate (full rate on TITAN) [recall]")

gf_rtx("rtx-3050-8gb", "GeForce RTX 3050 8GB", ["RTX 3050", "3050"], 8, 224, "14 Gbps GDDR6 x 128-bit = 224 GB/s", 20, 1777, GF30, GA_WP)
gf_rtx("rtx-3060-12gb", "GeForce RTX 3060 12GB", ["RTX 3060", "3060", "RTX 3060 12GB"], 12, 360, "15 Gbps GDDR6 x 192-bit = 360 GB/s", 28, 1777, GF30, GA_WP)
gf_rtx("rtx-3060-8gb", "GeForce RTX 3060 8GB", ["RTX 3060", "3060", "RTX 3060 8GB"], 8, 240, "15 Gbps GDDR6 x 128-bit = 240 GB/s", 28, 1777, GF30, GA_WP,
       note="The 8 GB RTX 3060 has a 128-bit bus: two thirds of the 12 GB card's bandwidth. Name the memory size (`RTX 3060 8GB`).")
gf_rtx("rtx-3060-ti", "GeForce RTX 3060 Ti", ["RTX 3060 Ti", "3060 Ti"], 8, 448, "14 Gbps GDDR6 x 256-bit = 448 GB/s", 38, 1665, GF30, GA_WP)
gf_rtx("rtx-3070", "GeForce RTX 3070", ["RTX 3070", "3070"], 8, 448, "14 Gbps GDDR6 x 256-bit = 448 GB/s", 46, 1725, GF30, GA_WP)
gf_rtx("rtx-3070-ti", "GeForce RTX 3070 Ti", ["RTX 3070 Ti", "3070 Ti"], 8, 608, "19 Gbps GDDR6X x 256-bit = 608 GB/s", 48, 1770, GF30, GA_WP)
gf_rtx("rtx-3080-10gb", "GeForce RTX 3080 10GB", ["RTX 3080", "3080", "RTX 3080 10GB"], 10, 760, "19 Gbps GDDR6X x 320-bit = 760 GB/s", 68, 1710, GF30, GA_WP)
gf_rtx("rtx-3080-12gb", "GeForce RTX 3080 12GB", ["RTX 3080", "3080", "RTX 3080 12GB"], 12, 912, "19 Gbps GDDR6X x 384-bit = 912 GB/s", 70, 1710, GF30, GA_WP)
gf_rtx("rtx-3080-ti", "GeForce RTX 3080 Ti", ["RTX 3080 Ti", "3080 Ti"], 12, 912, "19 Gbps GDDR6X x 384-bit = 912 GB/s", 80, 1665, GF30, GA_WP)
gf_rtx("rtx-3090-ti", "GeForce RTX 3090 Ti", ["RTX 3090 Ti", "3090 Ti"], 24, 1008, "21 Gbps GDDR6X x 384-bit = 1008 GB/s", 84, 1860, GF30, GA_WP)

for (i, n, al, mem, bw, how, sm, mhz) in [
    ("rtx-4060", "GeForce RTX 4060", ["RTX 4060", "4060"], 8, 272, "17 Gbps GDDR6 x 128-bit = 272 GB/s", 24, 2460),
    ("rtx-4060-ti-8gb", "GeForce RTX 4060 Ti 8GB", ["RTX 4060 Ti", "4060 Ti", "RTX 4060 Ti 8GB"], 8, 288, "18 Gbps GDDR6 x 128-bit = 288 GB/s", 34, 2535),
    ("rtx-4060-ti-16gb", "GeForce RTX 4060 Ti 16GB", ["RTX 4060 Ti", "4060 Ti", "RTX 4060 Ti 16GB"], 16, 288, "18 Gbps GDDR6 x 128-bit = 288 GB/s", 34, 2535),
    ("rtx-4070", "GeForce RTX 4070", ["RTX 4070", "4070"], 12, 504, "21 Gbps GDDR6X x 192-bit = 504 GB/s", 46, 2475),
    ("rtx-4070-super", "GeForce RTX 4070 SUPER", ["RTX 4070 Super", "4070 Super"], 12, 504, "21 Gbps GDDR6X x 192-bit = 504 GB/s", 56, 2475),
    ("rtx-4070-ti", "GeForce RTX 4070 Ti", ["RTX 4070 Ti", "4070 Ti"], 12, 504, "21 Gbps GDDR6X x 192-bit = 504 GB/s", 60, 2610),
    ("rtx-4070-ti-super", "GeForce RTX 4070 Ti SUPER", ["RTX 4070 Ti Super", "4070 Ti Super"], 16, 672, "21 Gbps GDDR6X x 256-bit = 672 GB/s", 66, 2610),
    ("rtx-4080", "GeForce RTX 4080", ["RTX 4080", "4080"], 16, 716.8, "22.4 Gbps GDDR6X x 256-bit = 716.8 GB/s", 76, 2505),
    ("rtx-4080-super", "GeForce RTX 4080 SUPER", ["RTX 4080 Super", "4080 Super"], 16, 736, "23 Gbps GDDR6X x 256-bit = 736 GB/s", 80, 2550),
]:
    gf_rtx(i, n, al, mem, bw, how, sm, mhz, GF40, AD_WP, fp8=True)

for (i, n, al, mem, bw, how, sm, mhz) in [
    ("rtx-5060", "GeForce RTX 5060", ["RTX 5060", "5060"], 8, 448, "28 Gbps GDDR7 x 128-bit = 448 GB/s", 30, 2497),
    ("rtx-5060-ti-8gb", "GeForce RTX 5060 Ti 8GB", ["RTX 5060 Ti", "5060 Ti", "RTX 5060 Ti 8GB"], 8, 448, "28 Gbps GDDR7 x 128-bit = 448 GB/s", 36, 2572),
    ("rtx-5060-ti-16gb", "GeForce RTX 5060 Ti 16GB", ["RTX 5060 Ti", "5060 Ti", "RTX 5060 Ti 16GB"], 16, 448, "28 Gbps GDDR7 x 128-bit = 448 GB/s", 36, 2572),
    ("rtx-5070", "GeForce RTX 5070", ["RTX 5070", "5070"], 12, 672, "28 Gbps GDDR7 x 192-bit = 672 GB/s", 48, 2512),
    ("rtx-5070-ti", "GeForce RTX 5070 Ti", ["RTX 5070 Ti", "5070 Ti"], 16, 896, "28 Gbps GDDR7 x 256-bit = 896 GB/s", 70, 2452),
    ("rtx-5080", "GeForce RTX 5080", ["RTX 5080", "5080"], 16, 960, "30 Gbps GDDR7 x 256-bit = 960 GB/s", 84, 2617),
]:
    gf_rtx(i, n, al, mem, bw, how, sm, mhz, GF50, GB_WP, fp8=True)

# --- NVIDIA workstation -------------------------------------------------------------------------
QP = "Pascal Quadro: no tensor cores; the FP32 rate is the prefill proxy."
for (i, n, al, mem, bw, how, fp32) in [
    ("quadro-p4000", "Quadro P4000", ["P4000"], 8, 243, "243 GB/s", 5.3),
    ("quadro-p5000", "Quadro P5000", ["P5000"], 16, 288, "288 GB/s", 8.9),
    ("quadro-p6000", "Quadro P6000", ["P6000"], 24, 432, "432 GB/s", 12.0),
]:
    gpu(i, n, "NVIDIA", al + [smi(n)], mem, f"{NVQ}: {mem} GB GDDR5/GDDR5X", bw, f"{NVQ}: {how}", fp32=fp32,
        fp32_src=f"{NVQ}: {fp32} TFLOPS FP32", note=QP)
for (i, n, al, mem, bw, how, tc) in [
    ("quadro-rtx-4000", "Quadro RTX 4000", ["RTX 4000"], 8, 416, "416 GB/s", 57.0),
    ("quadro-rtx-5000", "Quadro RTX 5000", ["RTX 5000"], 16, 448, "448 GB/s", 89.2),
    ("quadro-rtx-6000", "Quadro RTX 6000", ["RTX 6000"], 24, 672, "672 GB/s", 130.5),
    ("quadro-rtx-8000", "Quadro RTX 8000", ["RTX 8000"], 48, 672, "672 GB/s", 130.5),
]:
    gpu(i, n, "NVIDIA", al + [smi(n)], mem, f"{NVQ}: {mem} GB GDDR6", bw, f"{NVQ}: {how}", bf16=tc,
        bf16_src=f"{NVQ}: {tc} TFLOPS tensor performance (FP16, dense; Turing has no BF16)")
for (i, n, al, mem, bw, sparse) in [
    ("rtx-a2000-6gb", "RTX A2000 6GB", ["A2000", "RTX A2000", "RTX A2000 6GB"], 6, 288, 63.9),
    ("rtx-a2000-12gb", "RTX A2000 12GB", ["A2000", "RTX A2000", "RTX A2000 12GB"], 12, 288, 63.9),
    ("rtx-a4000", "RTX A4000", ["A4000"], 16, 448, 153.4),
    ("rtx-a4500", "RTX A4500", ["A4500"], 20, 640, 189.2),
    ("rtx-a5000", "RTX A5000", ["A5000"], 24, 768, 222.2),
    ("rtx-a5500", "RTX A5500", ["A5500"], 24, 768, 272.8),
    ("rtx-a6000", "RTX A6000", ["A6000"], 48, 768, 309.7),
]:
    gpu(i, n, "NVIDIA", al + [smi(n.replace(" 6GB", "").replace(" 12GB", ""))], mem, f"{NVWS}: {mem} GB GDDR6", bw, f"{NVWS}: {bw} GB/s",
        bf16=r1(sparse / 2), bf16_src=f"{NVWS}: {sparse} TFLOPS tensor performance with sparsity, halved")
for (i, n, al, mem, bw, aitops) in [
    ("rtx-2000-ada", "RTX 2000 Ada Generation", ["RTX 2000 Ada", "2000 Ada"], 16, 224, 191.9),
    ("rtx-4000-ada", "RTX 4000 Ada Generation", ["RTX 4000 Ada", "4000 Ada"], 20, 360, 327.6),
    ("rtx-4500-ada", "RTX 4500 Ada Generation", ["RTX 4500 Ada", "4500 Ada"], 24, 432, 634.0),
    ("rtx-5000-ada", "RTX 5000 Ada Generation", ["RTX 5000 Ada", "5000 Ada"], 32, 576, 1044.4),
    ("rtx-6000-ada", "RTX 6000 Ada Generation", ["RTX 6000 Ada", "6000 Ada"], 48, 960, 1457.0),
]:
    gpu(i, n, "NVIDIA", al + [smi(n)], mem, f"{NVWS}: {mem} GB GDDR6", bw, f"{NVWS}: {bw} GB/s",
        bf16=r1(aitops / 4), bf16_src=f"derived: {aitops} AI TOPS (FP8 with sparsity) / 2 dense / 2 for FP16 ({NVWS})",
        fp8=r1(aitops / 2), fp8_src=f"{NVWS}: {aitops} AI TOPS (FP8 with sparsity), halved")
for (i, n, al, mem, bw, aitops) in [
    ("rtx-pro-4000-blackwell", "RTX PRO 4000 Blackwell", ["RTX PRO 4000"], 24, 672, 1247.0),
    ("rtx-pro-4500-blackwell", "RTX PRO 4500 Blackwell", ["RTX PRO 4500"], 32, 896, 1687.0),
    ("rtx-pro-5000-blackwell", "RTX PRO 5000 Blackwell", ["RTX PRO 5000"], 48, 1344, 2142.0),
    ("rtx-pro-6000-blackwell", "RTX PRO 6000 Blackwell", ["RTX PRO 6000", "RTX PRO 6000 Blackwell Workstation Edition", "RTX PRO 6000 Blackwell Server Edition"], 96, 1792, 4000.0),
]:
    gpu(i, n, "NVIDIA", al + [smi(n)], mem, f"{NVWS}: {mem} GB GDDR7", bw, f"{NVWS}: {bw} GB/s",
        bf16=r1(aitops / 8), bf16_src=f"derived: {aitops} AI TOPS (FP4 with sparsity) / 2 dense / 4 for FP16 ({NVWS}); the FP16-accumulate rate: whether FP32 accumulate runs at full rate on this part was not confirmed (a database lists half)",
        fp8=r1(aitops / 4), fp8_src=f"derived: {aitops} AI TOPS (FP4 with sparsity) / 2 dense / 2 for FP8 ({NVWS})",
        fp4=r1(aitops / 2), fp4_src=f"{NVWS}: {aitops} AI TOPS (FP4 with sparsity), halved")

# --- NVIDIA datacenter --------------------------------------------------------------------------
def dc(id, name, al, mem, memtype, bw, url, bf16=None, bf16how=None, fp8=None, fp4=None, fp32=None, note=None, sparse_halved=True):
    s = NVDC.format(url=url)
    kw = {}
    if bf16 is not None:
        kw.update(bf16=bf16, bf16_src=f"{s}: {bf16how}")
    if fp8 is not None:
        kw.update(fp8=fp8[0], fp8_src=f"{s}: {fp8[1]}")
    if fp4 is not None:
        kw.update(fp4=fp4[0], fp4_src=f"{s}: {fp4[1]}")
    if fp32 is not None:
        kw.update(fp32=fp32, fp32_src=f"{s}: {fp32} TFLOPS FP32")
    gpu(id, name, "NVIDIA", al, mem, f"{s}: {mem} GB {memtype}", bw, f"{s}: {bw} GB/s", note=note, **kw)

dc("tesla-m40-24gb", "Tesla M40 24GB", ["M40", "M40 24GB", "Tesla M40 24GB"], 24, "GDDR5", 288,
   "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-m40-datasheet.pdf", fp32=7.0,
   note="Maxwell: no tensor cores and no fast FP16.")
dc("tesla-m40-12gb", "Tesla M40 12GB", ["M40", "M40 12GB", "Tesla M40"], 12, "GDDR5", 288,
   "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-m40-datasheet.pdf", fp32=7.0,
   note="Maxwell: no tensor cores and no fast FP16.")
dc("tesla-p4", "Tesla P4 8GB", ["P4", "Tesla P4"], 8, "GDDR5", 192,
   "https://images.nvidia.com/content/pdf/tesla/184457-Tesla-P4-Datasheet-NV-Final-Letter-Web.pdf", fp32=5.5, note=PASCAL_NOTE)
dc("tesla-p100-pcie-16gb", "Tesla P100 PCIe 16GB", ["P100", "P100 PCIe 16GB", "Tesla P100-PCIE-16GB"], 16, "HBM2", 732,
   "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf", fp32=9.3,
   note="Pascal GP100: no tensor cores; FP16 vector at twice the FP32 rate (18.7 TFLOPS), which llama.cpp's FP16 paths can use.")
dc("tesla-p100-pcie-12gb", "Tesla P100 PCIe 12GB", ["P100", "P100 PCIe 12GB", "Tesla P100-PCIE-12GB"], 12, "HBM2", 549,
   "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf", fp32=9.3,
   note="Pascal GP100: no tensor cores; FP16 vector at twice the FP32 rate.")
dc("tesla-p100-sxm2", "Tesla P100 SXM2 16GB", ["P100 SXM2", "Tesla P100-SXM2-16GB"], 16, "HBM2", 732,
   "https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-datasheet.pdf", fp32=10.6,
   note="Pascal GP100: no tensor cores; FP16 vector at twice the FP32 rate.")
dc("tesla-t4", "T4 16GB", ["T4", "Tesla T4"], 16, "GDDR6", 320,
   "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf",
   bf16=65, bf16how="65 TFLOPS mixed-precision (FP16/FP32) tensor (dense; Turing has no BF16)")
dc("v100-pcie-16gb", "V100 PCIe 16GB", ["V100 PCIe 16GB", "Tesla V100-PCIE-16GB"], 16, "HBM2", 900,
   "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf",
   bf16=112, bf16how="112 TFLOPS tensor (PCIe; FP16, Volta has no BF16)")
dc("v100s-pcie-32gb", "V100S PCIe 32GB", ["V100S", "Tesla V100S-PCIE-32GB"], 32, "HBM2", 1134,
   "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf",
   bf16=130, bf16how="130 TFLOPS tensor (V100S; FP16, Volta has no BF16)")
dc("a2", "A2 16GB", ["A2", "NVIDIA A2"], 16, "GDDR6", 200,
   "https://www.nvidia.com/content/dam/en-zz/solutions/data-center/a2/pdf/a2-datasheet.pdf",
   bf16=18, bf16how="36 TFLOPS FP16 tensor with sparsity, halved")
dc("a10", "A10 24GB", ["A10", "NVIDIA A10"], 24, "GDDR6", 600,
   "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/a10-datasheet.pdf",
   bf16=125, bf16how="250 TFLOPS BF16 tensor with sparsity, halved")
dc("a30", "A30 24GB", ["A30", "NVIDIA A30"], 24, "HBM2", 933,
   "https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf",
   bf16=165, bf16how="330 TFLOPS BF16 tensor with sparsity, halved")
dc("a40", "A40 48GB", ["A40", "NVIDIA A40"], 48, "GDDR6", 696,
   "https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf",
   bf16=149.7, bf16how="299.4 TFLOPS BF16 tensor with sparsity, halved")
dc("l40", "L40 48GB", ["L40", "NVIDIA L40"], 48, "GDDR6", 864,
   "https://images.nvidia.com/content/Solutions/data-center/vgpu-L40-datasheet.pdf",
   bf16=181.05, bf16how="362.1 TFLOPS BF16 tensor with sparsity, halved",
   fp8=(362.05, "724.1 TFLOPS FP8 tensor with sparsity, halved"),
   note="Not the L40S: the L40 has half the L40S's 16-bit tensor rate at the same bandwidth.")
dc("gh200-96gb", "GH200 96GB", ["GH200", "GH200 96GB"], 96, "HBM3", 4000,
   "https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip",
   bf16=989, bf16how="1,979 TFLOPS BF16 tensor with sparsity, halved",
   fp8=(1979, "3,958 TFLOPS FP8 tensor with sparsity, halved"),
   note="The Hopper GPU of a Grace Hopper superchip; the Grace CPU's LPDDR5X (up to 480 GB, ~500 GB/s over NVLink-C2C) is not counted.")
dc("gh200-144gb", "GH200 144GB", ["GH200", "GH200 144GB", "GH200 HBM3e"], 144, "HBM3e", 4900,
   "https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip",
   bf16=989, bf16how="1,979 TFLOPS BF16 tensor with sparsity, halved",
   fp8=(1979, "3,958 TFLOPS FP8 tensor with sparsity, halved"),
   note="The HBM3e GH200; the Grace CPU's LPDDR5X is not counted.")
dc("b300", "B300 (HGX) 288GB", ["B300", "HGX B300", "B300 SXM"], 288, "HBM3e", 8000,
   "https://www.nvidia.com/en-us/data-center/hgx/",
   bf16=2250, bf16how="HGX B300 36 PFLOPS FP16/BF16 with sparsity for 8 GPUs: 4.5 per GPU, halved",
   fp8=(4500, "HGX B300 72 PFLOPS FP8 with sparsity for 8 GPUs: 9 per GPU, halved"))
dc("gb200", "GB200 (per Blackwell GPU) 186GB", ["GB200", "GB200 NVL72"], 186, "HBM3e", 8000,
   "https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
   bf16=2500, bf16how="GB200 NVL72 360 PFLOPS FP16/BF16 with sparsity for 72 GPUs: 5 per GPU, halved",
   fp8=(5000, "GB200 NVL72 720 PFLOPS FP8 with sparsity for 72 GPUs: 10 per GPU, halved"),
   fp4=(10000, "GB200 NVL72 1,440 PFLOPS FP4 with sparsity for 72 GPUs: 20 per GPU, halved"),
   note="One Blackwell GPU of a GB200 superchip (NVL72: 13.4 TB HBM3e over 72 GPUs, 8 TB/s each).")

# --- AMD Instinct ---------------------------------------------------------------------------------
def mi(id, name, al, mem, bw, note=None, **kw):
    src = {}
    for k, (v, how) in kw.items():
        src[k] = v
        src[k + "_src"] = f"{AMD_MI}: {how}"
    gpu(id, name, "AMD", al, mem, f"{AMD_MI}: {mem} GB HBM", bw, f"{AMD_MI}: {bw} GB/s", note=note, **src)

VEGA = "Vega 20: no matrix cores; packed FP16 runs at twice the FP32 rate on the vector units."
# ROCm and RADV print every gfx906 Instinct card as "AMD Instinct MI60 / MI50" (libdrm's amdgpu.ids,
# device 66A1 revision 02: https://gitlab.freedesktop.org/mesa/drm/-/blob/main/data/amdgpu.ids). A
# spaced " / " keeps the name whole, so it names the three cards and no other: ambiguous until the
# card is named, or, with the VRAM llama.cpp reports, among the cards of that size.
GFX906 = "AMD Instinct MI60 / MI50"
VEGA_IDS = (VEGA + " ROCm and RADV print the MI50 16 GB, the MI50 32 GB and the MI60 alike as \"AMD Instinct MI60 / MI50\": "
            "a reported VRAM of 16 GB names the MI50 16GB; of 32 GB, the MI50 32GB or the MI60 (name it: `MI60`, `MI50 32GB`).")
mi("mi50-16gb", "Instinct MI50 16GB", ["MI50", "MI50 16GB", "Radeon Instinct MI50", GFX906], 16, 1024, note=VEGA_IDS,
   fp32=(13.3, "13.3 TFLOPS FP32 (26.5 FP16 packed)"))
mi("mi50-32gb", "Instinct MI50 32GB", ["MI50", "MI50 32GB", "Radeon Instinct MI50 32GB", GFX906], 32, 1024, note=VEGA_IDS,
   fp32=(13.3, "13.3 TFLOPS FP32 (26.5 FP16 packed)"))
mi("mi60", "Instinct MI60 32GB", ["MI60", "Radeon Instinct MI60", GFX906], 32, 1024, note=VEGA_IDS,
   fp32=(14.7, "14.7 TFLOPS FP32 (29.5 FP16 packed)"))
mi("mi100", "Instinct MI100 32GB", ["MI100", "AMD Instinct MI100"], 32, 1228.8,
   bf16=(184.6, "184.6 TFLOPS FP16 matrix (BF16: 92.3)"),
   note="CDNA1: FP16 matrix rate shown; BF16 runs at half of it (92.3 TFLOPS).")
mi("mi210", "Instinct MI210 64GB", ["MI210", "AMD Instinct MI210"], 64, 1638.4,
   bf16=(181.0, "181 TFLOPS FP16/BF16 matrix"))
mi("mi250", "Instinct MI250 128GB", ["MI250", "AMD Instinct MI250"], 128, 3276.8,
   bf16=(362.1, "362.1 TFLOPS FP16/BF16 matrix"),
   note="Two GCDs in one package: ROCm shows two devices of 64 GB and 1.64 TB/s each; a single-device ceiling is half these figures.")
mi("mi250x", "Instinct MI250X 128GB", ["MI250X", "AMD Instinct MI250X"], 128, 3276.8,
   bf16=(383.0, "383 TFLOPS FP16/BF16 matrix"),
   note="Two GCDs in one package: ROCm shows two devices of 64 GB and 1.64 TB/s each; a single-device ceiling is half these figures.")
# One die of either: ROCm lists each GCD as its own device and names both parts' dies alike, "AMD Instinct MI250X /
# MI250" (a spaced " / " stays part of the name, so it is not read as "MI250"). Figures: read() below.
mi("mi250x-mi250-gcd", "Instinct MI250X / MI250 GCD 64GB", ["AMD Instinct MI250X / MI250", "MI250X GCD", "MI250 GCD"], 64, 1638.4,
   bf16=(191.5, "half the MI250X module's 383 TFLOPS"),
   note="One GCD (die) of an MI250X or MI250 module, as ROCm, vLLM and llama.cpp see it: each die has its own 64 GB and half "
        "the module's bandwidth. ROCm prints both parts' dies alike, so the MI250X's higher matrix rate is taken (the MI250's die: 181.05 TFLOPS).")
MI35 = ("The Register, AMD's MI355X (https://www.theregister.com/2025/06/12/amd_mi355x/): 288 GB HBM3E, 8 TBps, "
        "10 PFLOPS FP4 dense on the MI355X (20 with sparsity); ISSCC 2026 report "
        "(https://www.world-today-news.com/?p=7253162): 8,192 FP8 FLOP/clk per CU, 5 PFLOPS FP8; Wccftech, Hot Chips 2025 "
        "(https://wccftech.com/amd-instinct-mi350-gpuai-hardware-powerhouse-3nm-3d-chiplet-cdna-4-185-billion-transistors-1400w-tbp-over-4000b-llm-support//amp/): "
        "MI350X 2.2 GHz, MI355X 2.4 GHz [read]")
def mi35(id, name, al, ghz):
    fp8 = round(8192 * 256 * ghz / 1e3, -2)
    d = f"derived: 256 CUs x 8,192 FP8 FLOP/clk x {ghz} GHz = {fp8:.0f} TFLOPS FP8 dense; FP16/BF16 half, FP4 twice ({MI35})"
    gpu(id, name, "AMD", al, 288, MI35, 8000, MI35, bf16=fp8 / 2, bf16_src=d, fp8=fp8, fp8_src=d, fp4=fp8 * 2, fp4_src=d)
mi35("mi350x", "Instinct MI350X 288GB", ["MI350X", "AMD Instinct MI350X"], 2.2)
mi35("mi355x", "Instinct MI355X 288GB", ["MI355X", "AMD Instinct MI355X"], 2.4)

# --- AMD Radeon -------------------------------------------------------------------------------------
RDNA2 = "RDNA2: no matrix units; FP16 runs packed on the shader cores, so the FP32 rate is the prefill proxy."
for (i, n, al, mem, bw, how, fp32) in [
    ("rx-6600", "Radeon RX 6600", ["RX 6600", "6600"], 8, 224, "14 Gbps x 128-bit = 224 GB/s", 8.9),
    ("rx-6600-xt", "Radeon RX 6600 XT", ["RX 6600 XT", "6600 XT"], 8, 256, "16 Gbps x 128-bit = 256 GB/s", 10.6),
    ("rx-6650-xt", "Radeon RX 6650 XT", ["RX 6650 XT", "6650 XT"], 8, 280, "17.5 Gbps x 128-bit = 280 GB/s", 10.8),
    ("rx-6700-xt", "Radeon RX 6700 XT", ["RX 6700 XT", "6700 XT"], 12, 384, "16 Gbps x 192-bit = 384 GB/s", 13.2),
    ("rx-6750-xt", "Radeon RX 6750 XT", ["RX 6750 XT", "6750 XT"], 12, 432, "18 Gbps x 192-bit = 432 GB/s", 13.3),
    ("rx-6800", "Radeon RX 6800", ["RX 6800", "6800"], 16, 512, "16 Gbps x 256-bit = 512 GB/s", 16.2),
    ("rx-6800-xt", "Radeon RX 6800 XT", ["RX 6800 XT", "6800 XT"], 16, 512, "16 Gbps x 256-bit = 512 GB/s", 20.7),
    ("rx-6900-xt", "Radeon RX 6900 XT", ["RX 6900 XT", "6900 XT"], 16, 512, "16 Gbps x 256-bit = 512 GB/s", 23.0),
    ("rx-6950-xt", "Radeon RX 6950 XT", ["RX 6950 XT", "6950 XT"], 16, 576, "18 Gbps x 256-bit = 576 GB/s", 23.7),
]:
    gpu(i, n, "AMD", al, mem, f"{AMD_RX}: {mem} GB GDDR6", bw, f"{AMD_RX}: {how}",
        fp32=fp32, fp32_src=f"{AMD_RX}: peak single precision {fp32} TFLOPS", note=RDNA2 + " Infinity Cache is not counted in the bandwidth.")
RDNA3 = "RDNA3: the WMMA FP16 rate (AMD's peak half-precision figure) is shown. Infinity Cache is not counted in the bandwidth."
for (i, n, al, mem, bw, how, fp16) in [
    ("rx-7600", "Radeon RX 7600", ["RX 7600", "7600"], 8, 288, "18 Gbps x 128-bit = 288 GB/s", 43.5),
    ("rx-7600-xt", "Radeon RX 7600 XT", ["RX 7600 XT", "7600 XT"], 16, 288, "18 Gbps x 128-bit = 288 GB/s", 45.1),
    ("rx-7700-xt", "Radeon RX 7700 XT", ["RX 7700 XT", "7700 XT"], 12, 432, "18 Gbps x 192-bit = 432 GB/s", 70.3),
    ("rx-7800-xt", "Radeon RX 7800 XT", ["RX 7800 XT", "7800 XT"], 16, 624, "19.5 Gbps x 256-bit = 624 GB/s", 74.6),
    ("rx-7900-gre", "Radeon RX 7900 GRE", ["RX 7900 GRE", "7900 GRE"], 16, 576, "18 Gbps x 256-bit = 576 GB/s", 92.0),
    ("rx-7900-xt", "Radeon RX 7900 XT", ["RX 7900 XT", "7900 XT"], 20, 800, "20 Gbps x 320-bit = 800 GB/s", 103.0),
    ("rx-7900-xtx", "Radeon RX 7900 XTX", ["RX 7900 XTX", "7900 XTX", "7900XTX"], 24, 960, "20 Gbps x 384-bit = 960 GB/s", 122.8),
]:
    gpu(i, n, "AMD", al, mem, f"{AMD_RX}: {mem} GB GDDR6", bw, f"{AMD_RX}: {how}",
        bf16=fp16, bf16_src=f"{AMD_RX}: peak half precision (FP16) {fp16} TFLOPS", note=RDNA3)
RDNA4 = "RDNA4: AMD's vector FP16 figure stands in (WMMA matrix rates are not published per card), so the prefill ceiling is conservative."
for (i, n, al, mem, bw, how, fp16) in [
    ("rx-9060-xt-16gb", "Radeon RX 9060 XT 16GB", ["RX 9060 XT", "9060 XT", "RX 9060 XT 16GB"], 16, 320, "20 Gbps x 128-bit = 320 GB/s", 51.3),
    ("rx-9060-xt-8gb", "Radeon RX 9060 XT 8GB", ["RX 9060 XT", "9060 XT", "RX 9060 XT 8GB"], 8, 320, "20 Gbps x 128-bit = 320 GB/s", 51.3),
    ("rx-9070", "Radeon RX 9070 16GB", ["RX 9070", "9070"], 16, 640, "20 Gbps x 256-bit = 640 GB/s", 72.3),
]:
    gpu(i, n, "AMD", al, mem, f"{AMD_RX}: {mem} GB GDDR6", bw, f"{AMD_RX}: {how}",
        bf16=fp16, bf16_src=f"{AMD_RX}: peak half precision (FP16) {fp16} TFLOPS (vector)", note=RDNA4)
gpu("radeon-pro-w6800", "Radeon PRO W6800 32GB", "AMD", ["W6800", "PRO W6800"], 32, f"{AMD_PRO}: 32 GB GDDR6", 512, f"{AMD_PRO}: 512 GB/s",
    fp32=17.8, fp32_src=f"{AMD_PRO}: peak single precision 17.83 TFLOPS", note=RDNA2)
gpu("radeon-pro-w7800", "Radeon PRO W7800 32GB", "AMD", ["W7800", "PRO W7800"], 32, f"{AMD_PRO}: 32 GB GDDR6", 576, f"{AMD_PRO}: 576 GB/s",
    bf16=90.5, bf16_src=f"{AMD_PRO}: peak half precision (FP16) 90.5 TFLOPS", note=RDNA3)
gpu("radeon-pro-w7900", "Radeon PRO W7900 48GB", "AMD", ["W7900", "PRO W7900"], 48, f"{AMD_PRO}: 48 GB GDDR6", 864, f"{AMD_PRO}: 864 GB/s",
    bf16=122.6, bf16_src=f"{AMD_PRO}: peak half precision (FP16) 122.6 TFLOPS", note=RDNA3)
# Strix Halo's iGPU (Ryzen AI Max 390/395): llama.cpp's ROCm backend prints "Radeon 8060S Graphics", RADV
# "Radeon 8060S Graphics (RADV STRIX_HALO)"; RADV's "AMD Radeon Graphics (RADV GFX1151)" names the 8050S too.
SH_STRIX = ("svethardware.cz, AMD představuje Ryzen AI Max (Strix Halo) s až 16 jádry a GPU se 40 CU (CES 2025 launch report)",
            "https://www.svethardware.cz/amd-predstavuje-ryzen-ai-max-strix-halo-s-az-16-jadry-a-gpu-se-40-cu/61477")
TH_STRIX = ("Tom's Hardware, Mysterious AMD Ryzen AI MAX+ Pro 395 Strix Halo APU emerges on Geekbench (pre-launch report)",
            "https://tomshardware.com/pc-components/cpus/mysterious-amd-ryzen-ai-max-pro-395-strix-halo-apu-emerges-on-geekbench-processor-expected-to-officially-debut-at-ces-2025")
def _q(t, quote):
    return f"{t[0]} ({t[1]}): {quote}"
gpu("radeon-8060s", "Radeon 8060S (Ryzen AI Max 390 and 395)", "AMD",
    ["Radeon 8060S", "Radeon 8060S Graphics", "Ryzen AI Max+ 395", "Ryzen AI Max 390", "Strix Halo"],
    128, _q(TH_STRIX, "Ryzen AI Max+ Pro 395 \"is paired with 64GB of RAM, going as high as 128GB per shipping manifests\"")
    + "; on one machine llama.cpp's ROCm line reads \"Radeon 8060S Graphics, gfx1151 (0x1151) ... VRAM: 126976 MiB\" (124 GiB; https://github.com/ggml-org/llama.cpp/pull/21344) [read]",
    256, _q(SH_STRIX, "Ryzen AI Max+ 395 with \"GPU Radeon 8060S\": \"Využívat lze paměti LPDDR5x-8000 ... je zde 256bitové rozhraní\", \"činí paměťová propustnost 256 GB/s\"") + " [read]",
    bf16=59.4, bf16_src="derived: 40 CUs x 2900 MHz x 512 FP16 FLOP/clk/CU (the RDNA3 WMMA rate, which RDNA 3.5 keeps) = 59.4 TFLOPS ("
    + _q(SH_STRIX, "\"GPU Radeon 8060S s architekturou RDNA 3.5, které má 40 CU\", \"GPU běží na velmi vysoké frekvenci 2900 MHz\"") + " [read])",
    note="Strix Halo iGPU on unified LPDDR5X: the memory figure is the largest configuration; the GPU gets what the firmware and driver assign "
         "(llama.cpp's ROCm line prints it as VRAM). The Radeon 8050S (32 CUs, Ryzen AI Max 385) is not catalogued, so RADV's generic "
         "\"AMD Radeon Graphics (RADV GFX1151)\" stays unknown.")

# --- Intel Arc ---------------------------------------------------------------------------------------
for (i, n, al, mem, bw, how, tops) in [
    ("arc-b580", "Arc B580 12GB", ["B580", "Arc B580", "Intel Arc B580 Graphics"], 12, 456, "19 Gbps x 192-bit = 456 GB/s", 233),
    ("arc-b570", "Arc B570 10GB", ["B570", "Arc B570", "Intel Arc B570 Graphics"], 10, 380, "19 Gbps x 160-bit = 380 GB/s", 203),
]:
    gpu(i, n, "Intel", al, mem, f"{INTEL}: {mem} GB GDDR6", bw, f"{INTEL}: {how}",
        bf16=r1(tops / 2), bf16_src=f"derived: {tops} peak INT8 TOPS (XMX) / 2 for FP16 ({INTEL})")
for (i, n, al, mem, bw, how, fp32) in [
    ("arc-a770-16gb", "Arc A770 16GB", ["A770", "Arc A770", "A770 16GB", "Intel Arc A770 Graphics"], 16, 560, "17.5 Gbps x 256-bit = 560 GB/s", 19.7),
    ("arc-a770-8gb", "Arc A770 8GB", ["A770", "Arc A770", "A770 8GB"], 8, 512, "16 Gbps x 256-bit = 512 GB/s", 19.7),
    ("arc-a750", "Arc A750 8GB", ["A750", "Arc A750", "Intel Arc A750 Graphics"], 8, 512, "16 Gbps x 256-bit = 512 GB/s", 17.2),
    ("arc-a580", "Arc A580 8GB", ["A580", "Arc A580"], 8, 512, "16 Gbps x 256-bit = 512 GB/s", 12.3),
    ("arc-a380", "Arc A380 6GB", ["A380", "Arc A380"], 6, 186, "15.5 Gbps x 96-bit = 186 GB/s", 4.1),
    ("arc-a310", "Arc A310 4GB", ["A310", "Arc A310", "Intel Arc A310 Graphics"], 4, 124, "15.5 Gbps x 64-bit = 124 GB/s", 3.1),
]:
    gpu(i, n, "Intel", al, mem, f"{INTEL}: {mem} GB GDDR6", bw, f"{INTEL}: {how}",
        fp32=fp32, fp32_src=f"derived: Xe-cores x 128 FP32 lanes x 2 FLOP x graphics clock = {fp32} TFLOPS ({INTEL})",
        note="XMX matrix rate not catalogued: the FP32 vector rate stands in, so the prefill ceiling is conservative.")

# --- Apple silicon ---------------------------------------------------------------------------------
AP_NOTE = ("Unified memory: the memory figure is the chip's largest configuration; macOS lets the GPU wire about "
           "two thirds to three quarters of it by default (Metal's recommendedMaxWorkingSetSize; raise it with "
           "`sudo sysctl iogpu.wired_limit_mb=N`). Give your Mac's size with a `--catalog` entry.")
for (i, n, al, mem, bw, url, fp32) in [
    ("apple-m1", "Apple M1", ["M1"], 16, 68.25, "https://www.apple.com/newsroom/2020/11/apple-unleashes-m1/", 2.6),
    ("apple-m1-pro", "Apple M1 Pro", ["M1 Pro"], 32, 200, "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/", 5.2),
    ("apple-m1-max", "Apple M1 Max", ["M1 Max"], 64, 400, "https://www.apple.com/newsroom/2021/10/introducing-m1-pro-and-m1-max-the-most-powerful-chips-apple-has-ever-built/", 10.4),
    ("apple-m1-ultra", "Apple M1 Ultra", ["M1 Ultra"], 128, 800, "https://www.apple.com/newsroom/2022/03/apple-unveils-m1-ultra-the-worlds-most-powerful-chip-for-a-personal-computer/", 21.0),
    ("apple-m2", "Apple M2", ["M2"], 24, 100, "https://www.apple.com/newsroom/2022/06/apple-unveils-m2-with-breakthrough-performance-and-capabilities/", 3.6),
    ("apple-m2-pro", "Apple M2 Pro", ["M2 Pro"], 32, 200, "https://www.apple.com/newsroom/2023/01/apple-unveils-m2-pro-and-m2-max-next-generation-chips-for-next-level-workflows/", 6.8),
    ("apple-m2-max", "Apple M2 Max", ["M2 Max"], 96, 400, "https://www.apple.com/newsroom/2023/01/apple-unveils-m2-pro-and-m2-max-next-generation-chips-for-next-level-workflows/", 13.6),
    ("apple-m2-ultra", "Apple M2 Ultra", ["M2 Ultra"], 192, 800, "https://www.apple.com/newsroom/2023/06/apple-introduces-m2-ultra/", 27.2),
    ("apple-m3", "Apple M3", ["M3"], 24, 100, "https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-computer/", None),
    ("apple-m3-pro", "Apple M3 Pro", ["M3 Pro"], 36, 150, "https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-computer/", None),
    ("apple-m3-max-30c", "Apple M3 Max (30-core GPU)", ["M3 Max", "M3 Max 30-core GPU", "M3 Max 30c"], 96, 300, "https://www.apple.com/macbook-pro/specs/", None),
    ("apple-m3-max-40c", "Apple M3 Max (40-core GPU)", ["M3 Max", "M3 Max 40-core GPU", "M3 Max 40c"], 128, 400, "https://www.apple.com/newsroom/2023/10/apple-unveils-m3-m3-pro-and-m3-max-the-most-advanced-chips-for-a-personal-computer/", None),
    ("apple-m3-ultra", "Apple M3 Ultra", ["M3 Ultra"], 512, 819, "https://www.apple.com/newsroom/2025/03/apple-reveals-m3-ultra-taking-apple-silicons-performance-to-new-extremes/", None),
    ("apple-m4", "Apple M4", ["M4"], 32, 120, "https://www.apple.com/newsroom/2024/05/apple-introduces-m4-chip/", None),
    ("apple-m4-pro", "Apple M4 Pro", ["M4 Pro"], 64, 273, "https://www.apple.com/newsroom/2024/10/apple-introduces-m4-pro-and-m4-max/", None),
    ("apple-m4-max-32c", "Apple M4 Max (32-core GPU)", ["M4 Max", "M4 Max 32-core GPU", "M4 Max 32c"], 36, 410, "https://www.apple.com/macbook-pro/specs/", None),
    ("apple-m4-max-40c", "Apple M4 Max (40-core GPU)", ["M4 Max", "M4 Max 40-core GPU", "M4 Max 40c"], 128, 546, "https://www.apple.com/newsroom/2024/10/apple-introduces-m4-pro-and-m4-max/", None),
    ("apple-m5", "Apple M5", ["M5"], 32, 153, "https://www.apple.com/newsroom/2025/10/apple-unleashes-m5-the-next-big-leap-in-ai-performance-for-apple-silicon/", None),
    # No bare "M5 Max" alias: a 32-core M5 Max exists, whose bandwidth no page found states, so the
    # printed name "Apple M5 Max" is unknown (never taken as the 40-core part).
    ("apple-m5-max-40c", "Apple M5 Max (40-core GPU)", ["M5 Max 40-core GPU", "M5 Max 40c"], 128, 614, "https://www.macrumors.com/2026/03/03/apple-unveils-macbook-pro-with-m5-pro-and-m5-max-chips-with-neural-accelerators/", None),
]:
    s = APPLE.format(url=url)
    kw = {}
    if fp32 is not None:
        kw = dict(fp32=fp32, fp32_src=f"{s}: {fp32} TFLOPS GPU (FP32; no matrix units, FP16 at the same rate)")
    gpu(i, n, "Apple", al, mem, f"{s}: up to {mem} GB unified memory", bw, f"{s}: {bw} GB/s unified memory bandwidth",
        note=AP_NOTE + ("" if fp32 else " Apple publishes no TFLOPS figure for this chip: the prefill ceiling is unknown."), **kw)

# --- figures read on a public page (issue #30) ------------------------------------------------
# (id, figure) -> (value, source): replaces the row's figure and its "[recall]" source when the
# table is emitted. Each source names a page that was read and quotes what it states. NVIDIA's,
# AMD's and Intel's own spec pages were not among the pages found, so most are launch reports or a
# reseller's copy of the vendor's table, named as such; a database copy is used only where nothing
# else was found, and says so.
def page(title, url, quote):
    return f"{title} ({url}): {quote} [read]"

READ = {}
def read(id, key, value, src):
    READ[(id, key)] = (value, src)

SVET_40S = ("svethardware.cz, GeForce RTX 4000 Super launch table "
            "(https://www.svethardware.cz/nvidia-geforce-rtx-4000-super-prichazi-vice-jader-vice-pameti-nebo-nizsi-cena/60300)")
for i, mem, gbps, bus, bw in [
    ("rtx-4070", 12, "21", 192, 504), ("rtx-4070-super", 12, "21", 192, 504), ("rtx-4070-ti", 12, "21", 192, 504),
    ("rtx-4070-ti-super", 16, "21", 256, 672), ("rtx-4080", 16, "22,4", 256, 717), ("rtx-4080-super", 16, "23", 256, 736),
]:
    read(i, "mem", mem, f"{SVET_40S}: \"{mem} GB GDDR6X\" [read]")
    read(i, "bw", {717: 716.8}.get(bw, bw),
         f"{SVET_40S}: \"{gbps} Gbps\", \"{bus}-bit\", \"{bw} GB/s\"" + (" (22.4 Gbps x 256-bit = 716.8 GB/s)" if bw == 717 else "") + " [read]")
TELEPOLIS = "Telepolis.pl, GeForce RTX 4060 launch specifications (https://www.telepolis.pl/tech/sprzet/nvidia-geforce-rtx-4060-ti-polskie-ceny-specyfikacja)"
for i, mem in [("rtx-4060-ti-8gb", 8), ("rtx-4060-ti-16gb", 16)]:
    read(i, "mem", mem, page(TELEPOLIS[:TELEPOLIS.index(' (')], TELEPOLIS[TELEPOLIS.index('(') + 1:-1], "RTX 4060 Ti \"8 lub 16 GB pamięci VRAM GDDR6\""))
    read(i, "bw", 288, page(TELEPOLIS[:TELEPOLIS.index(' (')], TELEPOLIS[TELEPOLIS.index('(') + 1:-1], "RTX 4060 Ti \"GDDR6 18 Gbps na 128-bitowej szynie (288 GB/s przepustowości)\""))
read("rtx-4060", "mem", 8, page(TELEPOLIS[:TELEPOLIS.index(' (')], TELEPOLIS[TELEPOLIS.index('(') + 1:-1], "RTX 4060 \"8 GB pamięci GDDR6\""))
read("rtx-4060", "bw", 272, page(TELEPOLIS[:TELEPOLIS.index(' (')], TELEPOLIS[TELEPOLIS.index('(') + 1:-1], "RTX 4060 \"GDDR6 17 Gbps na 128-bitowej magistrali (272 GB/s)\""))

TT_50 = ("TweakTown, NVIDIA GeForce RTX 50 Series specs, pricing and performance (2025-01-07)",
         "https://www.tweaktown.com/news/102469/nvidia-geforce-rtx-50-series-specs-pricing-and-performance-plan-that-upgrade-today/index.html")
read("rtx-5080", "mem", 16, page(*TT_50, "RTX 5080 \"16GB GDDR7\""))
read("rtx-5080", "bw", 960, page(*TT_50, "RTX 5080 \"256-bit\", \"960 GB/sec\""))
read("rtx-5070-ti", "mem", 16, page(*TT_50, "RTX 5070 Ti \"16GB GDDR7\""))
read("rtx-5070-ti", "bw", 896, page(*TT_50, "RTX 5070 Ti \"256-bit\", \"896\" GB/sec"))
read("rtx-5070", "mem", 12, page(*TT_50, "RTX 5070 \"12GB GDDR7\", \"192-bit\" (its bandwidth cell was not in the part read)"))
TPU_5060TI = ("TechPowerUp, Gainward GeForce RTX 5060 Ti 8 GB review", "https://www.techpowerup.com/review/gainward-geforce-rtx-5060-ti-8-gb")
for i, mem in [("rtx-5060-ti-8gb", 8), ("rtx-5060-ti-16gb", 16)]:
    read(i, "mem", mem, page(*TPU_5060TI, "\"the RTX 5060 Ti with two memory variants, 16 GB and 8 GB\""))
    read(i, "bw", 448, page(*TPU_5060TI, "\"Both use 28 Gbps GDDR7 for the same 448 GB/s of memory bandwidth\""))
UTW = ("UtechWay, NVIDIA Confirms RTX 5060 Series Specs", "https://utechway.com/nvidia-confirms-rtx-5060-series-specs")
read("rtx-5060", "mem", 8, page(*UTW, "RTX 5060 \"8 GB of GDDR7 memory\""))
read("rtx-5060", "bw", 448, page(*UTW, "RTX 5060 \"128-bit memory bus and 28 Gbps memory speed, achieving the same 448 GB/s bandwidth\""))

TOMS_30 = ("Tom's Hardware, GeForce RTX 3080 Ti driver listing, specifications table (2020-12-10; the 3070 and 3080 columns are the shipped cards)",
           "https://www.tomshardware.com/uk/news/nvidia-driver-geforce-rtx-3080-ti-ampere-gpu")
read("rtx-3070", "mem", 8, page(*TOMS_30, "GeForce RTX 3070 \"8GB GDDR6\""))
read("rtx-3070", "bw", 448, page(*TOMS_30, "GeForce RTX 3070 \"14 Gbps\", \"256-bit\", \"448 GBps\""))
read("rtx-3080-10gb", "mem", 10, page(*TOMS_30, "GeForce RTX 3080 \"10GB GDDR6X\""))
read("rtx-3080-10gb", "bw", 760, page(*TOMS_30, "GeForce RTX 3080 \"19 Gbps\", \"320-bit\", \"760 GBps\""))
SE7EN = ("se7en.ws, NVIDIA presents GeForce RTX 3080 12 GB and RTX 3070 Ti 16 GB",
         "https://se7en.ws/nvidia-predstavila-videokarty-geforce-rtx-3080-12-gb-i-geforce-rtx-3070-ti-16-gb-banalnym-narashhivaniem-pamyati-delo-ne-ogranichilos")
read("rtx-3080-12gb", "mem", 12, page(*SE7EN, "\"GeForce RTX 3080 12 GB\""))
read("rtx-3080-12gb", "bw", 912, page(*SE7EN, "\"разрядность шины памяти новинки составляет 384 бита\" ... \"до 912 ГБ/с\", \"GDDR6X с частотой 19 ГГц\""
     " (atizone.it, https://atizone.it/news/reader.php?objid=32859, gives 19.5 Gbps and 936 GB/s instead: not followed)"))
SMARTW = ("SmartWorld, NVIDIA official announcement: RTX 3060 will be officially listed on February 25",
          "https://www.smartworld.cc/nvidia-official-announcement-rtx-3060-will-be-officially-listed-on-february-25/")
read("rtx-3060-12gb", "mem", 12, page(*SMARTW, "\"12GB of GDDR6 video memory\""))
read("rtx-3060-12gb", "bw", 360, page(*SMARTW, "\"192-bit bit width, which can provide a cumulative bandwidth of 360GB/s\""))
THINKC = ("ThinkComputers, NVIDIA Finally Introduces GeForce RTX 3060 8GB and RTX 3060 Ti GDDR6X",
          "https://thinkcomputers.org/nvidia-finally-introduces-geforce-rtx-3060-8gb-and-rtx-3060-ti-gddr6x/")
read("rtx-3060-8gb", "mem", 8, page(*THINKC, "\"The GeForce RTX 3060 now comes in an 8GB variant with a 128-bit memory bus\""))
read("rtx-3060-8gb", "bw", 240, page(*THINKC, "\"the bandwidth is restricted to 240 GB/s\""))
TT_3090TI = ("TweakTown, NVIDIA GeForce RTX 3090 Ti: full specs, price, performance details",
             "https://www.tweaktown.com/news/84164/nvidia-geforce-rtx-3090-ti-full-specs-price-performance-details/index.html")
read("rtx-3090-ti", "mem", 24, page(*TT_3090TI, "\"24GB of GDDR6X clocked at 21Gbps\""))
read("rtx-3090-ti", "bw", 1008, page(*TT_3090TI, "\"384-bit memory bus\" ... \"1008GB/sec memory bandwidth\""))

STH_A6000 = ("ServeTheHome, NVIDIA RTX A6000 48GB GPU drops Quadro designation (NVIDIA's spec table)",
             "https://servethehome.com/nvidia-rtx-a6000-48gb-gpu-drops-quadro-designation")
read("rtx-a6000", "mem", 48, page(*STH_A6000, "\"GPU Memory | 48 GB GDDR6 with ECC\""))
read("rtx-a6000", "bw", 768, page(*STH_A6000, "\"Memory Bandwidth | 768 GB/s\""))
ECER_A4000 = ("ECER reseller listing of the RTX A4000, reproducing NVIDIA's datasheet table",
              "https://www.ecer.com/corp/details-uuuedqa-p1bsb03-pci-express-3-0-x16-nvidia-rtx-a4000-16g-graphics-card-for-professional-video-editing.html")
read("rtx-a4000", "mem", 16, page(*ECER_A4000, "\"GPU memory 16GB GDDR6\""))
read("rtx-a4000", "bw", 448, page(*ECER_A4000, "\"Memory bandwidth 448 GB/s\""))
read("rtx-a4000", "bf16", 76.7, page(*ECER_A4000, "\"Tensor performance 153.4 TFLOPS\" (footnoted; NVIDIA's Ampere workstation tensor figures are sparse), halved"))
GK_6000ADA = ("grafikkarten.com, NVIDIA RTX 6000 Grafikkarte der Ada-Generation",
              "https://www.grafikkarten.com/de/news/nvidia-rtx-6000-grafikkarte-der-ada-generation")
read("rtx-6000-ada", "mem", 48, page(*GK_6000ADA, "\"48 GByte\" (the page says GDDR6X; NVIDIA's card is GDDR6)"))
read("rtx-6000-ada", "bw", 960, page(*GK_6000ADA, "\"384 Bit / 960 GByte/s\""))

MULLET = ("Mullet, NVIDIA L40/L40S product page reproducing NVIDIA's datasheet table", "https://www.mullet.se/product.html?product_id=355414")
read("l40", "mem", 48, page(*MULLET, "L40 \"GPU Memory | 48 GB GDDR6 with ECC\""))
read("l40", "bw", 864, page(*MULLET, "L40 \"Memory Bandwidth | 864GB/s\""))
read("l40", "bf16", 181.05, page(*MULLET, "L40 \"BFLOAT16 Tensor Core TFLOPS | 181.05 | 362.1*\" (* with sparsity): the dense figure"))
read("l40", "fp8", 362, page(*MULLET, "L40 \"FP8 Tensor Core | 362 | 724*\" (* with sparsity): the dense figure"))
BASETEN = ("Baseten, NVIDIA A10 vs A10G for ML model inference", "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/")
read("a10", "mem", 24, page(*BASETEN, "A10 and A10G: \"24 gigabytes of GDDR6 VRAM\""))
read("a10", "bw", 600, page(*BASETEN, "\"a memory bandwidth of 600 gigabytes per second\""))
SYS_T4 = ("sysrqmts.com, NVIDIA Tesla T4 specifications (database copy)", "https://sysrqmts.com/en/gpus/nvidia/tesla/t4")
read("tesla-t4", "mem", 16, page(*SYS_T4, "\"Memory size 16 GB\", \"Memory type GDDR6\""))
read("tesla-t4", "bw", 320, page(*SYS_T4, "\"Memory bus width 256 bit\", \"Bandwidth 320.0 GB/s\""))
NO_T4 = ("Network Outlet, NVIDIA Tesla T4 16GB GPU specs", "https://networkoutlet.com/blogs/articles/nvidia-tesla-t4-16gb-gpu-specs-performance-use-cases")
read("tesla-t4", "bf16", 65, page(*NO_T4, "\"FP16 Performance | 65 TFLOPS\" (dense; Turing has no BF16)"))
WORM = ("TechWorm (mirror), NVIDIA unveils its powerful PCIe HBM2 running GP100 Pascal GPU",
        "https://techwormam.pages.dev/posts/nvidia-unveils-its-powerful-pcie-hbm2-running-gp100-pascal-gpu-to-the-masses-techworm")
read("tesla-p100-pcie-16gb", "mem", 16, page(*WORM, "PCIe P100 \"16GB and 12GB variants\""))
read("tesla-p100-pcie-16gb", "bw", 732, page(*WORM, "\"memory bandwidths of 732GB/s and 549GB/s respectively\" (16 GB: 732)"))
read("tesla-p100-pcie-12gb", "mem", 12, page(*WORM, "PCIe P100 \"16GB and 12GB variants\""))
read("tesla-p100-pcie-12gb", "bw", 549, page(*WORM, "\"memory bandwidths of 732GB/s and 549GB/s respectively\" (12 GB: 549)"))
T4G = ("Tech4Gamers, NVIDIA Tesla P100 will be available in two variants, specification table",
       "https://tech4gamers.com/nvidia-tesla-p100-will-be-available-in-two-variants-of-16gb-12gb-hbm2/")
for i in ("tesla-m40-24gb", "tesla-m40-12gb"):
    read(i, "bw", 288, page(*T4G, "Tesla M40 \"6Gbps GDDR5\", \"384-bit\", \"288GB/sec\" (one figure for the M40; both memory sizes use the same bus)"))

NBC_MI100 = ("Notebookcheck, AMD announces CDNA-based Instinct MI100 GPU",
             "https://www.notebookcheck.net/AMD-announces-CDNA-based-Instinct-MI100-GPU-with-120-CUs-for-HPC-promises-up-to-2-1x-more-performance-per-dollar-compared-to-the-NVIDIA-A100.504329.0.html")
read("mi100", "mem", 32, page(*NBC_MI100, "\"HBM2 ECC Memory | 32 GB\""))
read("mi100", "bw", 1228.8, page(*NBC_MI100, "\"Memory Interface | 4,096-bit\", \"Memory Clock | 1.2 GHz\", \"Memory Bandwidth | 1.23 TB/s\" (4,096 bits x 2.4 GT/s = 1,228.8 GB/s)"))
read("mi100", "bf16", 184.6, page(*NBC_MI100, "\"FP16/FP16 Matrix TFLOPs (Peak) | 184.6\", \"bFLOAT16 TFLOPs (Peak) | 92.3\""))
LINX_MI60 = ("TheLinx, Radeon Instinct MI60, la nuova GPU di AMD", "https://thelinx.net/radeon-instinct-mi60-la-nuova-gpu-di-amd-566")
read("mi60", "mem", 32, page(*LINX_MI60, "\"Capacità di memoria: 32GB\""))
read("mi60", "bw", 1024, page(*LINX_MI60, "\"Bandwidth di memoria: 1024GB/s\""))
read("mi60", "fp32", 14.7, page(*LINX_MI60, "\"14,7 TFLOPS in quelli FP32\", FP16 \"29.5 TFLOPs\""))
WIKIMILI = ("AMD Instinct, Wikipedia article (WikiMili copy), products table", "https://wikimili.com/en/AMD_Instinct")
SEGNEXT = ("SegmentNext, AMD Radeon Instinct MI50 and MI60", "https://segmentnext.com/2018/11/07/amd-radeon-instinct-7nm-gpus/")
read("mi50-16gb", "mem", 16, page(*SEGNEXT, "\"the Radeon Instinct MI50 comes with 16GB of HBM2 memory\""))
for i in ("mi50-16gb", "mi50-32gb"):
    read(i, "bw", 1024, page(*WIKIMILI, "\"MI50 | 2018-11-06 | 7 nm | 60 | 1024\" GB/s"))
    read(i, "fp32", 13.3, page(*WIKIMILI, "MI50 \"26.5 TFLOPS\" FP16, \"13.3 TFLOPS\" FP32"))

DEVD = ("Devdiscourse, AMD Radeon RX 6000 series graphics cards (launch specifications)",
        "https://www.devdiscourse.com/article/technology/1288880-amd-radeon-rx-6000-series-graphics-cards-to-elevate-gaming-performance")
for i, n in [("rx-6800", "RX 6800"), ("rx-6800-xt", "RX 6800 XT"), ("rx-6900-xt", "RX 6900 XT")]:
    read(i, "mem", 16, page(*DEVD, f"Radeon {n}: \"16GB GDDR6 memory\""))
    read(i, "bw", 512, page(*DEVD, f"Radeon {n}: \"Memory bandwidth: up to 512 GB/s\""))
G3D = ("Guru3D, PowerColor Radeon RX 7900 XTX Hellhound Spectral White review, specifications page",
       "https://www.guru3d.com/review/powercolor-radeon-rx-7900-xtx-hellhound-spectral-white-review/page-4/")
read("rx-7900-xtx", "mem", 24, page(*G3D, "RX 7900 XTX \"24 GB GDDR6\""))
read("rx-7900-xtx", "bw", 960, page(*G3D, "RX 7900 XTX \"384-bit\", \"20 Gbps\", \"960 GB/s\""))
read("rx-7900-xt", "mem", 20, page(*G3D, "RX 7900 XT \"20 GB GDDR6\""))
read("rx-7900-xt", "bw", 800, page(*G3D, "RX 7900 XT \"320-bit\", \"20 Gbps\", \"800 GB/s\""))
read("rx-6950-xt", "mem", 16, page(*G3D, "6950 XT \"16 GB GDDR6\""))
read("rx-6950-xt", "bw", 576, page(*G3D, "6950 XT \"256-bit\", \"18 Gbps\", \"576 GB/s\""))
MPIT = ("Multiplayer.it, AMD Radeon RX 9070 XT e RX 9070: specifiche", "https://multiplayer.it/notizie/amd-radeon-rx-9070-xt-rx-9070-specifiche.html")
read("rx-9070", "mem", 16, page(*MPIT, "RX 9070 XT and RX 9070: \"16GB di memoria GDDR6\""))
read("rx-9070", "bw", 640, page(*MPIT, "\"clock a 20 Gbps e un bus di memoria a 256 bit, per una larghezza di banda totale di 640 GB/s\""))

SVET_ARC = ("svethardware.cz, Intel zveřejnil oficiální specifikace grafických karet Arc", "https://www.svethardware.cz/intel-zverejnil-oficialni-specifikace-grafickych-karet-arc/58344")
read("arc-a770-16gb", "mem", 16, page(*SVET_ARC, "A770: \"ta přímo od Intelu má mít kapacitu 16 GB\""))
read("arc-a770-16gb", "bw", 560, page(*SVET_ARC, "A770: \"256bitových pamětí zvýší propustnost na 560 GB/s\""))
read("arc-a750", "mem", 8, page(*SVET_ARC, "A750: \"8 GB GDDR6 paměti\""))
read("arc-a750", "bw", 512, page(*SVET_ARC, "A750: \"256bitové sběrnici s propustností 512 GB/s\""))
read("arc-a580", "mem", 8, page(*SVET_ARC, "A580: \"Paměť má kapacitu 8 GB\""))
read("arc-a580", "bw", 512, page(*SVET_ARC, "A580: \"256bitovou sběrnicí a vysokou propustností 512 GB/s\""))
read("arc-a380", "mem", 6, page(*SVET_ARC, "A380: \"6 GB paměti GDDR6\""))
read("arc-a380", "bw", 186, page(*SVET_ARC, "A380: \"datová propustnost má činit 186 GB/s\""))
# Arc A310 (issue #30: seen in a llama-bench Vulkan device line). Intel's own page was not among
# the pages found; PurePC's launch table gives Intel's figures, and a database copy agrees.
PUREPC_A310 = ("PurePC, Intel ARC A310 - nowa desktopowa karta graficzna Xe-HPG (launch article)", "https://www.purepc.pl/intel-arc-a310-nowa-desktopowa-karta-graficzna-xe-hpg-przeznaczona-do-podstawowych-zadan")
FPSB_A310 = ("fpsbench.com, Intel Arc A310 vs Iris Xe MAX Graphics (database copy)", "https://fpsbench.com/compare/gpu/intel-iris-xe-max-graphics-vs-intel-arc-a310")
read("arc-a310", "mem", 4, page(*PUREPC_A310, "\"Całość współpracuje z 4 GB pamięci GDDR6 (15,5 Gbps), która oparta jest na skromnej 64-bitowej magistrali\""))
read("arc-a310", "bw", 124, page(*PUREPC_A310, "table row \"Przepustowość 186 GB/s 124 GB/s\" (A380, A310)")
     + "; also " + page(*FPSB_A310, "A310 \"Memory Bus 64 bit\", \"Bandwidth 124.0 GB/s\""))
TCMD = ("TechCommand, The new Intel Arc B580 and B570 graphics are now official", "https://www.techcommand.uk/the-new-intel-arc-b580-and-b570-graphics-are-now-official-price-and-specifications/")
read("arc-b580", "mem", 12, page(*TCMD, "Arc B580: \"12 GB of memory\""))
read("arc-b570", "mem", 10, page(*TCMD, "Arc B570: \"10 GB of GDDR memory\""))
read("arc-b570", "bw", 380, page(*TCMD, "Arc B570: \"a 160-bit memory interface with a bandwidth of 380 GB/S\""))
FPSB = ("fpsbench.com, Intel Arc B580 specifications (database copy)", "https://fpsbench.com/compare/gpu/intel-arc-b580-vs-intel-uhd-graphics-730")
read("arc-b580", "bw", 456, page(*FPSB, "\"Memory Bus 192 bit\", \"19 Gbps effective\", \"Bandwidth 456.0 GB/s\""))

def apple(i, key, value, title, url, quote):
    read(i, key, value, page(title, url, quote))
MYBB = ("MyBroadband, Apple M1 Pro and M1 Max (launch report)", "https://mybroadband.co.za/news/hardware/418862-apple-m1-pro-and-m1-max-new-chips-powering-the-macbook-pro.html")
apple("apple-m1-pro", "mem", 32, *MYBB, "\"M1 Pro offers up to 200GB/s of memory bandwidth with support for up to 32GB of unified memory\"")
apple("apple-m1-pro", "bw", 200, *MYBB, "\"M1 Pro offers up to 200GB/s of memory bandwidth\"")
apple("apple-m1-max", "mem", 64, *MYBB, "\"M1 Max delivers up to 400GB/s of memory bandwidth ... and support for up to 64GB of unified memory\"")
apple("apple-m1-max", "bw", 400, *MYBB, "\"M1 Max delivers up to 400GB/s of memory bandwidth\"")
LW = ("Lifewire (mirror), Apple's M1 Ultra chip boasts even better performance", "https://lifewiress.pages.dev/posts/apple-s-m1-ultra-chip-boasts-even-better-performance")
apple("apple-m1-ultra", "mem", 128, *LW, "\"can support up to 128GB of unified memory\"")
apple("apple-m1-ultra", "bw", 800, *LW, "\"up to 800GB per second of memory bandwidth\"")
MR_M2 = ("MacRumors, Apple Announces M2 Chip With Support for Up to 24GB Memory", "https://www.macrumors.com/2022/06/06/apple-announces-m2-chip-with-support-for-up-to-24gb-memory/")
apple("apple-m2", "mem", 24, *MR_M2, "\"The M2 supports up to 24GB of LPDDR5 unified memory\"")
apple("apple-m2", "bw", 100, *MR_M2, "\"The chip supports 100GB/s of unified memory bandwidth\"")
NEOWIN = ("Neowin, Apple unveils next-generation M2 Pro and M2 Max chips", "https://neowin.net/amp/apple-unveils-next-generation-m2-pro-and-m2-max-chips-boosting-cpu-and-gpu-performance")
apple("apple-m2-pro", "mem", 32, *NEOWIN, "M2 Pro: \"up to 32GB of low latency unified memory\"")
apple("apple-m2-pro", "bw", 200, *NEOWIN, "M2 Pro: \"up to 200GB/s unified memory bandwidth\"")
apple("apple-m2-max", "mem", 96, *NEOWIN, "M2 Max: \"supporting up to 96GB of unified memory\"")
apple("apple-m2-max", "bw", 400, *NEOWIN, "M2 Max: \"400GB/s of unified memory bandwidth\"")
PROPAK = ("ProPakistani, Apple M2 Ultra chip unveiled for Mac Pro and Mac Studio", "https://propakistani.pk/2023/06/06/apple-m2-ultra-chip-unveiled-for-mac-pro-and-mac-studio/")
apple("apple-m2-ultra", "mem", 192, *PROPAK, "\"configurations supporting up to 192 GB of unified memory\"")
apple("apple-m2-ultra", "bw", 800, *PROPAK, "\"double the bandwidth of the M2 Max, reaching an impressive 800GB/s\"")
NBC_M3 = ("Notebookcheck, Apple M3 vs M2 Max vs M3 Pro", "https://www.notebookcheck.net/M3-vs-M2-Max-vs-Apple-M3-Pro-11-Core_15110_14975_16354.247596.0.html")
apple("apple-m3", "mem", 24, *NBC_M3, "M3: \"available in 8, 16 and 24 GB variants\"")
apple("apple-m3", "bw", 100, *NBC_M3, "M3: \"offers the same 100 GB/s maximum bandwidth\"")
YR = ("Yehuda Rothschild, Apple M3 Processor Series", "https://yehudarothschild.com/category/apple-silicon/")
MR_M3 = ("MacRumors, Apple M3 Pro Chip Has 25% Less Memory Bandwidth Than M1/M2 Pro", "https://www.macrumors.com/2023/10/31/apple-m3-pro-less-memory-bandwidth/")
apple("apple-m3-pro", "mem", 36, *YR, "M3 Pro: \"up to 36 GB unified RAM with 150 GB/s memory bandwidth\"")
apple("apple-m3-pro", "bw", 150, *MR_M3, "\"the M3 Pro system on a chip (SoC) features 150GB/s memory bandwidth\"")
apple("apple-m3-max-30c", "bw", 300, *MR_M3, "\"the less pricey scaled-down M3 Max with 14-core CPU and 30-core GPU has only 300GB/s of memory bandwidth\"")
apple("apple-m3-max-40c", "mem", 128, *YR, "M3 Max: \"up to 128 GB unified RAM with up to 400 GB/s memory bandwidth\"")
apple("apple-m3-max-40c", "bw", 400, *MR_M3, "M3 Max: Apple \"says it is capable of 'up to 400GB/s'\"")
TPU_M3U = ("TechPowerUp, Apple Unleashes New Mac Studio With M3 Ultra and M4 Max SoCs", "https://techpowerup.com/news-tags/Mac%20Studio")
apple("apple-m3-ultra", "mem", 512, *TPU_M3U, "\"configured with up to a whopping 512 GB of unified memory\"")
apple("apple-m3-ultra", "bw", 819, *TPU_M3U, "\"memory bandwidth of 819 GB/s\"")
ARS_M4 = ("Ars Technica (copy), Apple's M4, M4 Pro, and M4 Max compared to past generations", "https://goodnewsapodcast.com/apples-m4-m4-pro-and-m4-max-compared-to-past-generations-and-to-each-other")
apple("apple-m4", "mem", 32, *ARS_M4, "\"Apple M4 (high) | 4/6 | 10 | 16/24/32GB\"")
apple("apple-m4", "bw", 120, *ARS_M4, "\"Apple M4 (high) ... | 120GB/s\"")
apple("apple-m4-max-32c", "bw", 410, *ARS_M4, "\"The low-end M4 Max offers 410GB/s of memory bandwidth\"")
TMORAN = ("TechMoran, Apple unveils its most powerful chips: the M4 Pro and M4 Max", "https://techmoran.com/2024/10/31/apple-unveils-its-most-powerful-chips-the-m4-pro-and-m4-max/?amp=1")
apple("apple-m4-pro", "mem", 64, *TMORAN, "M4 Pro: \"Supporting up to 64GB of unified memory at 273GB/s bandwidth\"")
apple("apple-m4-pro", "bw", 273, *TMORAN, "M4 Pro: \"273GB/s bandwidth\"")
GB_M4M = ("GameBastion (Wccftech copy), Apple's M4 Max is the first non-Ultra chip past 500GB/s", "https://gamebastion.com/n/apple-s-m4-max-is-the-first-non-ultra/474547")
apple("apple-m4-max-40c", "mem", 128, *GB_M4M, "\"configured with up to a 16-core CPU and a 40-core GPU ... up to 128GB of unified RAM\"")
apple("apple-m4-max-40c", "bw", 546, *GB_M4M, "\"which Apple claims has a bandwidth of 546GB/s\"")
HF_M4MAX = ("Hugging Face dataset Yinxing/LLM_Dataset, MacPro.txt (a copy of a Japanese launch report on the M4 Pro/M4 Max MacBook Pro)",
            "https://huggingface.co/datasets/Yinxing/LLM_Dataset/blob/main/MacPro.txt")
apple("apple-m4-max-32c", "mem", 36, *HF_M4MAX, "\"M4 Maxは、14コアCPU/32コアGPUと16コアCPU/40コアCPUの2種類で、前者がメモリ36GBのみ、後者が最大128GBまで\" (the 14-core CPU / 32-core GPU M4 Max comes with 36 GB only; the 40-core up to 128 GB)")
MR_M5MAX = ("MacRumors, Apple unveils MacBook Pro with M5 Pro and M5 Max chips (2026-03-03, from Apple's press release)",
            "https://www.macrumors.com/2026/03/03/apple-unveils-macbook-pro-with-m5-pro-and-m5-max-chips-with-neural-accelerators/")
LOWYAT_M5MAX = ("Lowyat.NET, Apple M5 Pro and M5 Max (source: Apple press release)", "https://www.lowyat.net/2026/385170/apple-m5-pro-m5-max")
apple("apple-m5-max-40c", "mem", 128, *MR_M5MAX, "\"M5 Pro features up to 20 GPU cores, while M5 Max doubles that to 40\", \"M5 Max retains its 128GB ceiling\"")
read("apple-m5-max-40c", "bw", 614, page(*MR_M5MAX, "\"M5 Max retains its 128GB ceiling but raises bandwidth to 614GB/s\"")[:-len(" [read]")]
     + "; " + page(*LOWYAT_M5MAX, "\"the M5 Max, it gets a maximum of 40 GPU cores, supporting up to 128GB of unified memory and 614GB/s of memory bandwidth\"")
     + " (Apple's \"up to\" figure, the 40-core part; the 32-core M5 Max is not catalogued)")

SCAN = ("Scan TekSpek, NVIDIA GeForce RTX 3060 Ti, specification table", "https://www.scan.co.uk/tekspek/gpu-graphics/nvidia-geforce-rtx-3060ti")
for i, n, mem, bus, gbps, bw in [
    ("rtx-3060-ti", "RTX 3060 Ti", 8, 256, "14", 448), ("rtx-2080-ti", "RTX 2080 Ti", 11, 352, "14", 616),
    ("rtx-2080-super", "RTX 2080 Super", 8, 256, "15.5", 496), ("rtx-2080", "RTX 2080", 8, 256, "14", 448),
    ("rtx-2070-super", "RTX 2070 Super", 8, 256, "14", 448), ("rtx-2060", "RTX 2060", 6, 192, "14", 336),
]:
    read(i, "mem", mem, page(*SCAN, f"{n} \"Memory Size\" \"{mem}GB\""))
    read(i, "bw", bw, page(*SCAN, f"{n} \"Memory Bus\" \"{bus}-bit\", \"Memory Clock\" \"{gbps}Gbps\", \"Memory Bandwidth\" \"{bw}\""))
EG = ("Eurogamer (copy), Nvidia GeForce RTX 3060 Ti review, specification table", "https://counterthreats.netlify.app/nkwzg40")
read("rtx-2060-super", "mem", 8, page(*EG, "RTX 2060 Super \"8GB GDDR6\""))
read("rtx-2060-super", "bw", 448, page(*EG, "RTX 2060 Super \"256-bit\", \"448GB/s\""))
read("gtx-1060-6gb", "mem", 6, page(*EG, "GTX 1060 \"6GB GDDR5\""))
read("gtx-1060-6gb", "bw", 192, page(*EG, "GTX 1060 \"192-bit\", \"192GB/s\""))
ECER_A40 = ("ECER reseller listing of the NVIDIA A40, reproducing NVIDIA's datasheet table",
            "https://www.ecer.com/corp/details-uuuedqa-p1bsay9-multi-display-setups-supported-by-48gb-gddr6-ecc-memory-nvidia-a40-gpu-and-vga-outputs.html")
read("a40", "mem", 48, page(*ECER_A40, "\"GPU memory 48 GB GDDR6 with ECC\""))
read("a40", "bw", 696, page(*ECER_A40, "\"Memory bandwidth 696 GB/s\""))
read("a40", "bf16", 149.7, page(*ECER_A40, "\"Peak BF16 Tensor TFLOPS with FP32 Accumulate 149.7 | 299.4*\" (* with sparsity): the dense figure"))
EC_QR5 = ("EveryChina reseller listing of the Quadro RTX 5000, reproducing NVIDIA's datasheet table",
          "https://networking-equipments.sell.everychina.com/p-117599392-nvidia-quadro-rtx-5000-16g-video-card-the-ultimate-graphics-upgrade-for-professionals.html")
read("quadro-rtx-5000", "mem", 16, page(*EC_QR5, "\"GPU Memory 16 GB GDDR6\""))
read("quadro-rtx-5000", "bw", 448, page(*EC_QR5, "\"Memory Bandwidth Up to 448 GB/s\""))
read("quadro-rtx-5000", "bf16", 89.2, page(*EC_QR5, "\"Tensor Performance 89.2 TFLOPS\""))
HN_M1 = ("Hacker News comment (mirror) quoting The Register on the M1", "https://jdk.foude.net/item?id=41972226")
apple("apple-m1", "mem", 16, *HN_M1, "\"The SoC has access to 16GB of unified memory. This uses 4266 MT/s LPDDR4X SDRAM\"")

BYC = ("BiteYourConsole, Nvidia svela ufficialmente la nuova scheda grafica GTX 1080 Ti", "https://biteyourconsole.net/2017/03/02/nvidia-svela-ufficialmente-la-nuova-scheda-grafica-gtx-1080-ti")
read("gtx-1080-ti", "mem", 11, page(*BYC, "\"11 GB di memoria GDDR5X\""))
read("gtx-1080-ti", "bw", 484, page(*BYC, "\"in esecuzione a 11Gbps su una interfaccia di memoria a livello 352-bit\" (11 Gbps x 352-bit = 484 GB/s)"))
IBA = ("Infinite Branded Accessories, NVIDIA GeForce GTX 1080 GPU (reseller description)", "https://infinitebrandedaccessories.com/products/nvidia-geforce-gtx-1080-gpu")
read("gtx-1080", "mem", 8, page(*IBA, "\"8 GB of GDDR5X memory\""))
read("gtx-1080", "bw", 320, page(*IBA, "\"a 256 bit wide memory bus, which gives 320.32 GB/s memory bandwidth\" (at its 2.5025 GHz clock; NVIDIA's 10 Gbps x 256-bit is 320)"))
G3D_16 = ("Guru3D, Gigabyte GTX 1660 SUPER GAMING OC review, GPU specifications page", "https://www.guru3d.com/review/gigabyte-gtx-1660-super-gaming-oc-review/page-5/")
for i, n, gbps, bus, bw in [("gtx-1660-ti", "GTX 1660 Ti", 12, 192, 288), ("gtx-1660-super", "GTX 1660 SUPER", 14, 192, 336),
                            ("gtx-1660", "GTX 1660", 8, 192, 192), ("gtx-1650", "GTX 1650", 8, 128, 128)]:
    read(i, "bw", bw, page(*G3D_16, f"{n} \"Memory Clock\" \"{gbps} Gbps\", \"Memory Bus\" \"{bus}-bit\" ({gbps} Gbps x {bus}-bit = {bw} GB/s)"))
read("gtx-1660-ti", "mem", 6, page(*G3D_16, "\"The GeForce GTX 1660 Ti (6GB 192-bit) is paired with 12 Gbps GDDR6\""))
TOMSHW_1660 = ("Tom's Hardware Italia, GeForce GTX 1660 SUPER, confermata la memoria GDDR6", "https://www.tomshw.it/hardware/geforce-gtx-1660-super-confermata-la-memoria-gddr6/")
read("gtx-1660", "mem", 6, page(*TOMSHW_1660, "\"La GTX 1660 standard ha 6 GB di memoria GDDR5 a 8 Gbps su bus a 192 bit\""))
G3D_7600 = ("Guru3D, Radeon RX 7600 review, specifications page", "https://www.guru3d.com/articles-pages/radeon-rx-7600-review,4.html")
read("rx-7600", "mem", 8, page(*G3D_7600, "7600 \"8 GB GDDR6\""))
read("rx-7600", "bw", 288, page(*G3D_7600, "7600 \"128-bit\", \"18 Gbps\", \"288 GB/s\""))

# Tensor rates derived from SM count and boost clock: the two inputs re-read.
def tc_read(i, sm, mhz, wp, pg):
    read(i, "bf16", r1(sm * mhz * 512 / 1e6), TC512.format(sm=sm, mhz=mhz, wp=wp, pages=pg))
for i, n, cores, mhz in [("rtx-4070", "RTX 4070", 5888, 2475), ("rtx-4070-super", "RTX 4070 Super", 7168, 2475),
                         ("rtx-4070-ti", "RTX 4070 Ti", 7680, 2610), ("rtx-4070-ti-super", "RTX 4070 Ti Super", 8448, 2610),
                         ("rtx-4080", "RTX 4080", 9728, 2505), ("rtx-4080-super", "RTX 4080 Super", 10240, 2550)]:
    tc_read(i, cores // 128, mhz, AD_WP, f"{SVET_40S}: {n} \"{cores}\" CUDA cores (128 per SM), boost \"{mhz} MHz\" [read]")
for i, n, cores, mhz in [("rtx-3080-10gb", "RTX 3080", 8704, 1710), ("rtx-3070", "RTX 3070", 5888, 1725), ("rtx-3060-ti", "RTX 3060 Ti", 4864, 1665)]:
    tc_read(i, cores // 128, mhz, GA_WP, page(*SCAN, f"{n} \"Shaders\" \"{cores:,}\" (128 per SM), \"Boost Clock (MHz)\" \"{mhz:,}\""))
for i, n, cores, mhz in [("rtx-2080-ti", "RTX 2080 Ti", 4352, 1545), ("rtx-2080-super", "RTX 2080 Super", 3072, 1815), ("rtx-2080", "RTX 2080", 2944, 1710),
                         ("rtx-2070-super", "RTX 2070 Super", 2560, 1770), ("rtx-2060", "RTX 2060", 1920, 1680)]:
    tc_read(i, cores // 64, mhz, TU_WP, page(*SCAN, f"{n} \"Shaders\" \"{cores:,}\" (64 per SM), \"Boost Clock (MHz)\" \"{mhz:,}\""))
KG_50 = ("KitGuru RTX 5060 Ti review (RSS copy), specification table", "https://intopress.info/recherche/p/i/?a=normal&get=f_125&rid=67fc9c36be54b")
for i, n, sm, mhz in [("rtx-5080", "RTX 5080", 84, 2617), ("rtx-5070-ti", "RTX 5070 Ti", 70, 2452), ("rtx-5070", "RTX 5070", 48, 2512)]:
    tc_read(i, sm, mhz, GB_WP, page(*KG_50, f"{n} \"SMs\" \"{sm}\", \"GPU Boost Clock\" \"{mhz} MHz\""))

ZEX = ("Zexron, AMD MI250(X) Aldebaran as MCM (AMD's specification table)", "https://zexron.com/amd-mi250-x-aldebaran-as-mcm-with-up-to-479-teraflop-s-and-560-watt-tdp")
WSM = ("World Stock Market, AMD Instinct MI250 accelerators presented", "https://www.worldstockmarket.net/video-card-with-128-gb-of-memory-8192-bit-bus-tbp-500-w-and-the-worlds-first-dual-chip-gpu-amd-instinct-mi250-accelerators-presented")
for i, n, fp16 in [("mi250x", "MI250x", "383.0"), ("mi250", "MI250", "362.1")]:
    read(i, "mem", 128, page(*ZEX, f"{n} \"128GB\" HBM2e"))
    read(i, "bw", 3276.8, page(*WSM, "\"128GB of HBM2E memory is clocked at 3.2GHz, which, combined with an 8192-bit bus, delivers 3.2TB / s\" (8,192 bits x 3.2 GT/s = 3,276.8 GB/s)"))
    read(i, "bf16", float(fp16), page(*ZEX, f"{n} \"FP16 | bf16(Peak)\" \"Up to {fp16} TF\""))
read("mi250x-mi250-gcd", "mem", 64, "derived: half the module's 128 GB, each die with its own four of the eight HBM2e stacks ("
     + page(*ZEX, "MI250x \"128GB\" HBM2e")[:-len(" [read]")] + ") [read]")
read("mi250x-mi250-gcd", "bw", 1638.4, "derived: half the module's 3,276.8 GB/s, each die on its own 4,096-bit half of the bus ("
     + page(*WSM, "\"128GB of HBM2E memory is clocked at 3.2GHz, which, combined with an 8192-bit bus, delivers 3.2TB / s\"")[:-len(" [read]")]
     + "): 4,096 bits x 3.2 GT/s = 1,638.4 GB/s [read]")
read("mi250x-mi250-gcd", "bf16", 191.5, "derived: half the MI250X module's 383.0 TFLOPS (the MI250's: 362.1, 181.05 per die); ROCm prints both parts' dies alike, "
     + "so the higher rate bounds either (" + page(*ZEX, "MI250x \"FP16 | bf16(Peak)\" \"Up to 383.0 TF\"")[:-len(" [read]")] + ") [read]")
ITC_2000 = ("IT Creations, NVIDIA RTX 2000 Ada Generation GPU (NVIDIA's specification table)", "https://www.itcreations.com/nvidia-gpu/nvidia-rtx-2000-ada-gpu")
read("rtx-2000-ada", "mem", 16, page(*ITC_2000, "\"GPU Memory | 16GB GDDR6\""))
read("rtx-2000-ada", "bw", 224, page(*ITC_2000, "\"Memory Bandwidth | 224GB/s\""))
read("rtx-2000-ada", "fp8", 96.0, page(*ITC_2000, "\"Tensor Performance | 191.9 TFLOPS\" (NVIDIA's FP8 figure with sparsity), halved"))
read("rtx-2000-ada", "bf16", 48.0, "derived: 191.9 (FP8 with sparsity) / 2 dense / 2 for FP16 (" + page(*ITC_2000, "\"Tensor Performance | 191.9 TFLOPS\"") + ")")
TOPCPU_4000 = ("topcpu.net, NVIDIA RTX 2000 Ada vs RTX 4000 Ada (database copy)", "https://www.topcpu.net/en/gpu-c/rtx-2000-ada-generation-vs-rtx-4000-ada-generation")
read("rtx-4000-ada", "mem", 20, page(*TOPCPU_4000, "RTX 4000 Ada \"Memory Size\" \"20GB\""))
read("rtx-4000-ada", "bw", 360, page(*TOPCPU_4000, "RTX 4000 Ada \"Memory Bus\" \"160bit\", \"Bandwidth\" \"360.0GB/s\""))
ASKG_4500 = ("askgeek.io, NVIDIA RTX 4500 Ada Generation (database copy)", "https://askgeek.io/es/gpus/NVIDIA/RTX-4500-Ada-Generation")
read("rtx-4500-ada", "mem", 24, page(*ASKG_4500, "\"Cantidad de RAM máxima - 24 GB\""))
read("rtx-4500-ada", "bw", 432, page(*ASKG_4500, "\"Ancho del bus de memoria - 192 bit\", \"Ancho de banda de la memoria - 432.0 GB/s\""))
HMC_5000 = ("hmc-tech.com, NVIDIA RTX 5000 Ada vs RTX 4000 Ada (database copy)", "https://hmc-tech.com/gpu/nvidia-rtx-5000-ada-vs-nvidia-rtx-4000-ada")
read("rtx-5000-ada", "mem", 32, page(*HMC_5000, "RTX 5000 Ada \"32GB GDDR6\""))

FUD_6600XT = ("Fudzilla, AMD officially announces Radeon RX 6600 XT", "https://mail.fudzilla.net/news/graphics/53319-amd-officially-announces-radeon-rx-6600-xt")
read("rx-6600-xt", "mem", 8, page(*FUD_6600XT, "\"8GB of 16Gbps GDDR6 memory\""))
read("rx-6600-xt", "bw", 256, page(*FUD_6600XT, "\"on a 128-bit memory interface, which adds up to 256 GB/s of memory bandwidth\""))
HH_6600XT = ("HotHardware, AMD Radeon RX 6600 XT 8GB GDDR6 for 1080p gaming", "https://hothardware.com/news/amd-radeon-rx-6600-xt-8gb-gddr6-1080p-gaming")
read("rx-6700-xt", "mem", 12, page(*HH_6600XT, "\"the Radeon RX 6700 XT sports ... 12GB of GDDR6 memory\""))
read("rx-6700-xt", "bw", 384, page(*HH_6600XT, "RX 6700 XT: \"a 192-bit wide memory bus, 384GB/s of memory bandwidth\""))
MTP = ("Meterpreter, AMD launches Radeon RX 7600 XT 16GB graphics card", "https://meterpreter.org/amd-launches-radeon-rx-7600-xt-16gb-graphics-card/")
read("rx-7600-xt", "mem", 16, page(*MTP, "\"The GDDR6 memory capacity has been upgraded from 8GB in the Radeon RX 7600 to 16GB\""))
read("rx-7600-xt", "bw", 288, page(*MTP, "\"128-bit memory interface width. The memory speed remains at 18Gbps, with a memory bandwidth of 288GB/s\""))
ELT = ("Elektronika.lt, AMD pristatė Radeon RX 7800 XT ir RX 7700 XT (Gamescom launch)", "http://elektronika.lt/naujienos/kompiuterija/88558/komentarai")
CPT_7800 = ("cputronic.com, AMD Radeon RX 7800 XT vs RX 7600 (database copy)", "https://cputronic.com/gpu/compare/amd-radeon-rx-7800-xt-vs-amd-radeon-rx-7600")
read("rx-7800-xt", "mem", 16, page(*CPT_7800, "RX 7800 XT \"Memory Size\" \"16GB\"")[:-len(" [read]")] + "; "
     + page(*ELT, "RX 7800 XT: \"16 GB GDDR6 atminties per visą lusto 256 bitų atminties sąsają\""))
read("rx-7800-xt", "bw", 624, page(*CPT_7800, "RX 7800 XT \"256bit\", \"624.1 GB/s\"")[:-len(" [read]")] + "; "
     + page(*ELT, "RX 7800 XT: \"jo atmintis veikia 19,5 Gb/s sparta, todėl atminties pralaidumas siekia 624 GB/s\""))
ITC_W7900 = ("IT Creations, AMD Radeon PRO W7900 GPU", "https://www.itcreations.com/amd-gpu/amd-radeon-pro-w7900-gpu")
read("radeon-pro-w7900", "mem", 48, page(*ITC_W7900, "\"The memory capacity on the AMD Radeon W7900 GPU is 48GB of GDDR6\""))
read("radeon-pro-w7900", "bw", 864, page(*ITC_W7900, "\"a blazing fast speed of 864 GB/s and a memory interface of 384-bit\""))
HH_9060 = ("HotHardware, Gigabyte Radeon RX 9060 XT review", "https://hothardware.com/reviews/gigabyte-radeon-rx-9600-xt-gpu-review")
for i, mem in [("rx-9060-xt-16gb", 16), ("rx-9060-xt-8gb", 8)]:
    read(i, "mem", mem, page(*HH_9060, "\"AMD Radeon RX 9060 XT: 16GB MSRP $349, 8GB $299\""))
    read(i, "bw", 320, page(*HH_9060, "\"GDDR6 memory operating at an effective 20Gbps over a 128-bit interface (320GB/s peak bandwidth)\""))

PPC_PRO = ("PurePC, NVIDIA RTX PRO 6000, RTX PRO 5000, RTX PRO 4500 and RTX PRO 4000 Blackwell (GTC 2025)",
           "https://www.purepc.pl/nvidia-rtx-pro-6000-rtx-pro-6000-max-q-rtx-pro-5000-rtx-pro-4500-oraz-rtx-pro-4000-profesjonalne-karty-graficzne-blackwell")
read("rtx-pro-6000-blackwell", "mem", 96, page(*PPC_PRO, "RTX PRO 6000: \"96 GB pamięci GDDR7 ECC na 512-bitowej magistrali\""))
read("rtx-pro-6000-blackwell", "bw", 1792, page(*PPC_PRO, "RTX PRO 6000: \"przekłada się na przepustowość 1792 GB/s\""))
read("rtx-pro-5000-blackwell", "mem", 48, page(*PPC_PRO, "RTX PRO 5000: \"48 GB pamięci GDDR7 ECC na 384-bitowej magistrali\""))
read("rtx-pro-5000-blackwell", "bw", 1344, page(*PPC_PRO, "RTX PRO 5000: \"przekłada się na przepustowość 1344 GB/s\""))
TW_P40 = ("TechWarrant (Tweakers copy), Nvidia Announces Tesla P40 and P4 Accelerators, specification table", "https://techwarrant.com/nvidia-announces-tesla-p40-and-p4-accelerators/amp")
read("tesla-p4", "mem", 8, page(*TW_P40, "Tesla P4 \"256bit gddr5\", \"8GB\""))
read("tesla-p4", "bw", 192, page(*TW_P40, "Tesla P4 \"192GB/s\""))
read("tesla-p4", "fp32", 5.5, page(*TW_P40, "Tesla P4 \"Single Precision (FP32)\" \"5.5Tflops\""))
read("tesla-m40-24gb", "mem", 24, page(*TW_P40, "Tesla M40 \"384bit gddr5\", \"12GB/24GB\""))
read("tesla-m40-12gb", "mem", 12, page(*TW_P40, "Tesla M40 \"384bit gddr5\", \"12GB/24GB\""))
for i in ("tesla-m40-24gb", "tesla-m40-12gb"):
    read(i, "fp32", 7.0, page(*TW_P40, "Tesla M40 \"Single Precision (FP32)\" \"7Tflops\" (3072 cores x 1114 MHz boost x 2 = 6.84)"))
for i in ("tesla-p100-pcie-16gb", "tesla-p100-pcie-12gb"):
    read(i, "fp32", 9.3, page(*T4G, "both PCIe Tesla P100 columns: \"Single Precision\" \"9.3 TFLOPS\""))
read("tesla-p100-sxm2", "fp32", 10.6, page(*T4G, "Tesla P100 Mezzanine (SXM2) column: \"Single Precision\" \"10.6 TFLOPS\""))
HH_P100 = ("HotHardware, NVIDIA Unveils Beastly Tesla P100", "https://hothardware.com/news/nvidia-unveils-beastly-tesla-p100-15-billion-transistor-16nm-finfet-gpu")
read("tesla-p100-sxm2", "mem", 16, page(*HH_P100, "\"16GB of Chip on Wafer on Substrate (CoWoS) HBM2\""))

PW_QR4 = ("ProductWiki, NVIDIA Quadro RTX 4000 8 GB (reseller data sheet)", "https://productwiki.co.uk/transparent-communications/components-graphics-cards/nvidia-quadro-rtx-4000-8-gb-3-dp-usbc-wiki/4594045.htm")
read("quadro-rtx-4000", "mem", 8, page(*PW_QR4, "\"Discrete graphics adapter memory 8 GB\""))
read("quadro-rtx-4000", "bw", 416, page(*PW_QR4, "\"Memory bandwidth (max)416 GB/s\", \"Memory bus 256 bit\""))
BTO = ("BTO-PC-Fan, NVIDIA Quadro RTX 4000 announced (Quadro RTX lineup table)", "https://bto-pc-fan.com/2018/11/14/post-2927")
read("quadro-rtx-4000", "bf16", 57.0, page(*BTO, "RTX 4000: \"288基のTensor Coreにより57TFlopsのDeep learning performance\""))
read("quadro-rtx-8000", "mem", 48, page(*BTO, "RTX 8000 column: \"GDDR6 48GB\""))
read("quadro-rtx-6000", "mem", 24, page(*BTO, "RTX 6000 column: \"GDDR6 24GB\""))
SYS_QR6 = ("sysrqmts.com, NVIDIA A40 PCIe vs Quadro RTX 6000 (database copy)", "https://sysrqmts.com/fr/gpus/compare/nvidia-a40-pcie-vs-nvidia-quadro-rtx-6000")
read("quadro-rtx-6000", "bw", 672, page(*SYS_QR6, "Quadro RTX 6000 \"14 Gbps effective\", \"384 bit\", \"672.0 GB/s\""))
CPT_A4500 = ("cputronic.com, NVIDIA RTX A4500 vs RTX PRO 2000 Blackwell (database copy)", "https://cputronic.com/gpu/compare/nvidia-rtx-a4500-vs-nvidia-rtx-pro-2000-blackwell")
read("rtx-a4500", "mem", 20, page(*CPT_A4500, "RTX A4500 \"20GB\" GDDR6"))
read("rtx-a4500", "bw", 640, page(*CPT_A4500, "RTX A4500 \"320bit\", \"640.0 GB/s\""))
ASK_A5500 = ("askgeek.io, NVIDIA RTX A5500 (database copy)", "https://askgeek.io/es/gpus/NVIDIA/NVIDIA-RTX-A5500")
read("rtx-a5500", "mem", 24, page(*ASK_A5500, "\"Cantidad de RAM máxima - 24 GB\""))
read("rtx-a5500", "bw", 768, page(*ASK_A5500, "\"Ancho del bus de memoria - 384 bit\", \"Ancho de banda de la memoria - 768.0 GB/s\""))
TAB_A2000 = ("Tabletowo, NVIDIA RTX A2000 specyfikacja", "https://www.tabletowo.pl/560720-nowosc-nvidia-rtx-a2000-specyfikacja-cena/")
read("rtx-a2000-6gb", "mem", 6, page(*TAB_A2000, "\"6 GB pamięci wideo GDDR6\""))
read("rtx-a2000-6gb", "bw", 288, page(*TAB_A2000, "\"na 192-bitowej szynie i efektywnym taktowaniu na poziomie 12000 MHz\" (12 Gbps x 192-bit = 288 GB/s)"))
ARMA = ("Armacomp, PNY RTX A2000 12GB (reseller listing)", "https://armacomp.hu/termek/3136/alkatresz/videokartya/pny-rtx-a2000-12gb-ddr6-oem")
read("rtx-a2000-12gb", "mem", 12, page(*ARMA, "\"12GB, GDDR6, 192bit\""))
OCA_1070 = ("ocaholic, Nvidia Geforce GTX 1070 official specifications", "https://ocaholic.ch/modules/news/article.php?lang=german&storyid=14744")
read("gtx-1070", "mem", 8, page(*OCA_1070, "\"8GB des üblichen GDDR5-Speichers\""))
read("gtx-1070", "bw", 256, page(*OCA_1070, "\"256-Bit-Interface verbunden. Insgesamt ergibt sich so eine Bandbreite von 256GB/s\""))
read("gtx-1070", "fp32", 6.5, "derived: 1920 CUDA cores x boost 1683 MHz x 2 FLOP/clk (" + page(*OCA_1070, "\"1920 CUDA-Kerne\", boost \"bis zu 1683MHz\"") + ")")
HWL_1070TI = ("Hardwareluxx, GeForce GTX 1070 Ti", "https://www.hardwareluxx.de/index.php/tags/geforce-gtx-1070-ti.html")
read("gtx-1070-ti", "mem", 8, page(*HWL_1070TI, "\"256 Bit breites Speicherinterface, welches 8 GB an GDDR5 mit 2.000 MHz an sich bindet\""))
read("gtx-1070-ti", "bw", 256, page(*HWL_1070TI, "\"256 Bit\", \"GDDR5 mit 2.000 MHz\" (8 Gbps effective x 256-bit = 256 GB/s)"))
BOOT_1070TI = ("Booteng, GTX 1070 Ti review (規格解析)", "https://booteng.com/b/246857.html")
read("gtx-1070-ti", "fp32", 8.2, "derived: 2432 CUDA cores x boost 1683 MHz x 2 FLOP/clk (" + page(*HWL_1070TI, "\"2.432 Shader\"") + "; " + page(*BOOT_1070TI, "\"Boost频率和GTX 1070齐平,为1683MHz\"") + ")")
read("gtx-1080", "fp32", 8.9, "derived: 2560 CUDA cores x boost 1733 MHz x 2 FLOP/clk (" + page(*IBA, "\"2560 CUDA cores\", \"boost ... up to 1.733 GHz\"") + ")")
GECID = ("GECID, A closer look at the GeForce GTX 1080 Ti", "https://ua.gecid.com/news/bolee_podrobnyj_vzglyad_na_geforce_gtx_1080_ti")
read("gtx-1080-ti", "fp32", 11.3, "derived: 3584 CUDA cores x boost 1582 MHz x 2 FLOP/clk (" + page(*GECID, "\"3584 CUDA-ядер\", \"динамічна сягає 1582 МГц\"") + ")")
for i, n, cores, mhz in [("gtx-1660-ti", "GTX 1660 Ti", 1536, 1770), ("gtx-1660-super", "GTX 1660 SUPER", 1408, 1785),
                         ("gtx-1660", "GTX 1660", 1408, 1785), ("gtx-1650", "GTX 1650", 896, 1665)]:
    read(i, "fp32", r1(cores * mhz * 2 / 1e6), f"derived: {cores} CUDA cores x boost {mhz} MHz x 2 FLOP/clk ("
         + page(*G3D_16, f"{n} \"CUDA Cores\" \"{cores}\", \"Boost Clock\" \"{mhz} MHz\"") + ")")

# Arc A-series FP32: Intel's graphics clock as the page states it (the table's earlier figures used
# the 2,400 MHz boost clock that database copies list, contradicting its own "graphics clock").
for i, n, xe, mhz in [("arc-a770-16gb", "A770", 32, 2100), ("arc-a770-8gb", "A770", 32, 2100), ("arc-a750", "A750", 28, 2050),
                      ("arc-a580", "A580", 24, 1700), ("arc-a380", "A380", 8, 2000)]:
    read(i, "fp32", r1(xe * 128 * 2 * mhz / 1e6), f"derived: {xe} Xe-cores x 128 FP32 lanes x 2 FLOP x graphics clock {mhz} MHz = {r1(xe * 128 * 2 * mhz / 1e6)} TFLOPS ("
         + page(*SVET_ARC, f"{n}: \"{xe} Xe-Core\", clock \"{mhz} MHz\"") + ")")
read("arc-a310", "fp32", r1(6 * 128 * 2 * 2000 / 1e6), "derived: 6 Xe-cores x 128 FP32 lanes x 2 FLOP x graphics clock 2000 MHz = 3.1 TFLOPS ("
     + page(*PUREPC_A310, "\"z zaledwie 6 blokami Xe\", \"Karta graficzna powinna pracować z maksymalnym taktowaniem 2000 MHz\" (the page adds that 2100 MHz is also quoted; the database copy lists 1750 MHz: the higher clock keeps the ceiling an upper bound)") + ")")
GM_6800XT = ("gpu-monkey.com, AMD Radeon RX 6800 XT (database copy)", "https://www.gpu-monkey.com/en/gpu-amd_radeon_rx_6800_xt")
read("rx-6800-xt", "fp32", 20.7, page(*GM_6800XT, "\"a theoretical FP32 computing power of 20.74 TFLOPS is achieved\""))
FPSB_6900 = ("fpsbench.com, AMD Radeon RX 6900 XT vs RX Vega 56 (database copy)", "https://fpsbench.com/compare/gpu/amd-radeon-rx-6900-xt-vs-amd-radeon-rx-vega-56")
read("rx-6900-xt", "fp32", 23.0, "HEXUS, PowerColor Radeon RX 6600 XT Red Devil review (AMD specification table) (https://hexus.net/tech/reviews/graphics/148189-powercolor-radeon-rx-6600-xt-red-devil): Radeon RX 6900 XT \"Peak GFLOPS (SP)\" \"23,040\"; also " + page(*FPSB_6900, "RX 6900 XT \"FP32 (TFLOPS)\" \"23.04 TFLOPS\""))
tc_read("rtx-4060", 24, 2460, AD_WP, page(TELEPOLIS[:TELEPOLIS.index(' (')], TELEPOLIS[TELEPOLIS.index('(') + 1:-1], "RTX 4060 \"3072 jednostkach CUDA\" (128 per SM), \"2460 MHz w Boost\""))
for i in ("rtx-4060-ti-8gb", "rtx-4060-ti-16gb"):
    tc_read(i, 34, 2535, AD_WP, page(TELEPOLIS[:TELEPOLIS.index(' (')], TELEPOLIS[TELEPOLIS.index('(') + 1:-1], "RTX 4060 Ti \"4352 jednostki CUDA\" (128 per SM), \"w Boost rośnie do 2535 MHz\""))
tc_read("rtx-3090-ti", 84, 1860, GA_WP, page(*TT_3090TI, "\"the GA102 GPU with 84 SM units\", \"boost GPU clocks hit 1860MHz\""))
FPSB_3060 = ("fpsbench.com, GeForce RTX 3060 8 GB vs RTX 4060 Mobile (database copy)", "https://fpsbench.com/compare/gpu/nvidia-geforce-rtx-3060-8-gb-vs-nvidia-geforce-rtx-4060-mobile")
tc_read("rtx-3060-8gb", 28, 1777, GA_WP, page(*FPSB_3060, "RTX 3060 8 GB \"SM Count 28\", \"Boost Clock 1777 MHz\""))
SC_3060 = ("siliconcat.net, GeForce RTX 3060 vs RTX 4060 Ti (database copy)", "https://siliconcat.net/gpu/compare/nvidia-geforce-rtx-3060-vs-nvidia-geforce-rtx-4060-ti")
tc_read("rtx-3060-12gb", 28, 1777, GA_WP, page(*SC_3060, "GeForce RTX 3060 \"Boost Clock 1777MHz\", \"SM Count 28\""))

TW_M1 = ("Techworm (mirror), Apple's latest M1 Max chip packs more raw GPU power than Sony's PlayStation 5", "https://tendencyweed.pages.dev/posts/apple-s-latest-m1-max-chip-packs-more-raw-gpu-power-than-sony-s-playstation-5-759033")
for i, n, tf in [("apple-m1", "M1 8-core", 2.6), ("apple-m1-pro", "M1 Pro 16-core", 5.2), ("apple-m1-max", "M1 Max 32-core", 10.4)]:
    read(i, "fp32", tf, page(*TW_M1, f"\"{n} = {tf} TF\"") [:-len(" [read]")] + " (FP32; no matrix units, FP16 at the same rate) [read]")
DEC_M5 = ("The Decoder, Apple's M5 chip brings faster AI to MacBook, iPad and Vision Pro", "https://the-decoder.com/apples-m5-chip-brings-faster-ai-to-macbook-ipad-and-vision-pro/")
apple("apple-m5", "mem", 32, *DEC_M5, "\"supports up to 32 GB of unified memory\"")
apple("apple-m5", "bw", 153, *DEC_M5, "\"offers 153 GB/s of shared memory bandwidth\"")

AT_MI210 = ("AnandTech, AMD Releases Instinct MI210 Accelerator: CDNA 2 On a PCIe Card (blog copy)", "https://bonggakadai.blogspot.com/2022/03/amd-releases-instinct-mi210-accelerator.html")
read("mi210", "mem", 64, page(*AT_MI210, "MI210 \"VRAM\" \"64GB\""))
read("mi210", "bw", 1638.4, page(*AT_MI210, "MI210 \"3.2 Gbps HBM2E\", \"4096-bit\", \"1.6TBps\" (4,096 bits x 3.2 GT/s = 1,638.4 GB/s)"))
read("mi210", "bf16", 181.0, page(*AT_MI210, "MI210 \"FP16 Matrix\" \"181 TFLOPS\""))
CN_GRE = ("CNews.cz, Radeon RX 7900 GRE vydán: specifikace, TDP a cena", "https://www.cnews.cz/clanky/radeon-rx-7900-gre-vydan-specifikace-tdp-a-cena-bude-k-dostani-i-u-nas-pres-oem-trh/")
read("rx-7900-gre", "mem", 16, page(*CN_GRE, "\"Spolu s 256bitovou sběrnicí a 16GB pamětí GDDR6\""))
read("rx-7900-gre", "bw", 576, page(*CN_GRE, "\"Takt pamětí je 18,0 GHz efektivně\" ... \"stejnou propustnost 576 GB/s jako Radeon RX 6950 XT\""))
KG_6X50 = ("KitGuru, Asus, Sapphire and PowerColor announce custom RX 6950 XT, RX 6750 XT and RX 6650 XT (AMD specification table)",
           "https://www.kitguru.net/components/graphic-cards/matthew-wilson/asus-sapphire-and-powercolor-announce-custom-rx-6950-xt-rx-6750-xt-and-rx-6650-xt-graphics-cards/")
for i, n, mem, gbps, bw, bus in [("rx-6750-xt", "RX 6750 XT", 12, "18", 432, 192), ("rx-6650-xt", "RX 6650 XT", 8, "17.5", 280, 128)]:
    read(i, "mem", mem, page(*KG_6X50, f"{n} \"{mem}GB GDDR6 {gbps}Gbps\""))
    read(i, "bw", bw, page(*KG_6X50, f"{n} \"Memory Bandwidth\" \"{bw} GB/s\", \"Memory Interface\" \"{bus}-bit\""))
HH_6950 = ("HotHardware, AMD Radeon RX 6950 XT, 6750 XT and 6650 XT deliver faster memory and clocks", "https://hothardware.com/news/amd-radeon-rx-6950-xt-6760-6650-faster-memory-clocks")
read("rx-6950-xt", "fp32", 23.7, page(*HH_6950, "RX 6950 XT: \"This results in 23.65 TFLOPS of FP32\""))
read("mi50-16gb", "mem", 16, page(*SEGNEXT, "\"the Radeon Instinct MI50 comes with 16GB of HBM2 memory\"")[:-len(" [read]")] + "; " + page(*AT_MI210, "MI50 column \"VRAM\" \"16GB\", \"Memory Bandwidth\" \"1.02TBps\""))

HMC_A2 = ("hmc-tech.com, NVIDIA A2 vs NVIDIA A40 (database copy)", "https://hmc-tech.com/gpu/nvidia-a2-vs-nvidia-a40")
read("a2", "mem", 16, page(*HMC_A2, "NVIDIA A2 \"16GB GDDR6\""))
read("a2", "bf16", 18, page(*HMC_A2, "NVIDIA A2 \"BF16\" \"18.13 TFLOPS Tensor\", \"36.25 TFLOPS Tensor Sparse\": the dense figure (NVIDIA rounds to 18)"))
SYS_3050 = ("sysrqmts.com, GeForce GTX 970 vs GeForce RTX 3050 8 GB (database copy)", "https://sysrqmts.com/pt/gpus/compare/nvidia-geforce-gtx-970-vs-nvidia-geforce-rtx-3050-8-gb")
read("rtx-3050-8gb", "mem", 8, page(*SYS_3050, "RTX 3050 8 GB \"Tamanho da memória\" \"8 GB\""))
read("rtx-3050-8gb", "bw", 224, page(*SYS_3050, "RTX 3050 8 GB \"14 Gbps effective\", \"128 bit\", \"224.0 GB/s\""))
tc_read("rtx-3050-8gb", 20, 1777, GA_WP, page(*SYS_3050, "RTX 3050 8 GB \"Contagem SM\" \"20\", \"Frequência de Boost\" \"1777 MHz\""))
TR_V100 = ("TechRival, NVIDIA Volta Tesla V100 cards detailed: 150W single-slot and 300W dual-slot PCIe accelerators", "https://www.techrival.com/nvidia-volta-tesla-v100-cards-detailed-150w-single-slot-300w-dual-slot-gv100-powered-pcie-accelerators/")
read("v100-pcie-16gb", "mem", 16, page(*TR_V100, "\"Both designs will house NVIDIA's next generation GV100 GPU featuring 5120 Volta CUDA cores with 16GB of HBM2\""))

YJ_1050TI = ("As principais características técnicas da GTX 1050 Ti (blog)", "https://yjcarbidetool.com/20230804/as-principais-caracteristicas-tecnicas-da-gtx-1050-ti")
AUT_1050 = ("Autonomy blog, GTX 1050 specs", "https://autonomy.githuka.com/blog/specs/")
read("gtx-1050-ti", "mem", 4, page(*YJ_1050TI, "\"A GTX 1050 Ti é equipada com 4 GB de memória GDDR5\""))
read("gtx-1050-ti", "bw", 112, page(*AUT_1050, "\"Like the 1050 Ti ... Instead of 4 GB on its aggregate 128-bit bus, though, Nvidia deploys 2 GB at the same 7 GT/s. Theoretical maximum bandwidth remains the same at 112 GB/s.\""))
read("gtx-1050-ti", "fp32", 2.1, "derived: 768 CUDA cores x boost 1392 MHz x 2 FLOP/clk (" + page(*YJ_1050TI, "\"768 núcleos CUDA\", \"velocidade de clock boost de 1392 MHz\"") + ")")
TG_XP = ("Techgage, NVIDIA Reveals New Top-End TITAN Xp", "https://techgage.com/news/nvidia-reveals-new-top-end-titan-xp/")
read("titan-xp", "mem", 12, page(*TG_XP, "TITAN Xp \"Memory\" \"12288 MB\" \"GDDR5X\""))
read("titan-xp", "bw", 547.7, page(*TG_XP, "TITAN Xp \"11.4Gbps\", \"547.7 GB/s\", \"384-bit\""))
GR_XP = ("GameRevolution, The NVIDIA Titan Xp is now the world's most powerful graphics card", "https://gamerevolution.preprod.vip.gnmedia.net/news/13974-the-nvidia-titan-xp-is-now-the-worlds-most-powerful-graphics-card")
read("titan-xp", "fp32", 12.1, "derived: 3840 CUDA cores x boost 1582 MHz x 2 FLOP/clk (" + page(*GR_XP, "TITAN Xp \"GPU Boost Clock\" \"1,582MHz\", \"CUDA Cores\" \"3,840\", \"Floating Point\" \"12 TFLOPS\"") + ")")

TVS_PRO = ("TurboVS, NVIDIA RTX PRO 4000 Blackwell vs RTX PRO 4500 Blackwell", "https://www.turbovs.com/compare/nvidia-rtx-pro-4000-blackwell-vs-nvidia-rtx-pro-4500-blackwell")
read("rtx-pro-4500-blackwell", "mem", 32, page(*TVS_PRO, "\"the RTX Pro 4500 ships with 32GB of VRAM over a 256-bit bus\""))
read("rtx-pro-4500-blackwell", "bw", 896, page(*TVS_PRO, "\"896 GB/s of peak memory bandwidth versus 672 GB/s on the 4000\""))
read("rtx-pro-4000-blackwell", "mem", 24, page(*TVS_PRO, "\"the RTX Pro 4000 offers 24GB across a narrower 192-bit bus\""))
read("rtx-pro-4000-blackwell", "bw", 672, page(*TVS_PRO, "\"896 GB/s of peak memory bandwidth versus 672 GB/s on the 4000\""))
SH_PRO5000 = ("svethardware.cz, Nvidia uvedla 72GB verzi karty RTX PRO 5000 (2025-10-22)", "https://www.svethardware.cz/nvidia-uvedla-72gb-verzi-karty-rtx-pro-5000/62241")
PEP_PRO5000 = ("pepelac.news, NVIDIA RTX PRO 5000 Blackwell: versión de 72 GB ya oficial (2025-12-20)", "https://pepelac.news/es/ampposts/id16857-nvidia-rtx-pro-5000-blackwell-version-72-gb-ya-oficial")
_pro5000 = (page(*SH_PRO5000, "the 48 GB card and the new 72 GB one: \"Samotné GPU má 14080 CUDA jader\", \"výkon dosahuje 2064 AI TOPS\", \"65 TFLOPS v FP32\"")[:-len(" [read]")]
            + "; " + page(*PEP_PRO5000, "\"Ambas variantes se basan en la arquitectura Blackwell con 14.080 núcleos CUDA\", \"NVIDIA habla de hasta 65 TFLOPS en FP32 ... además de 2.064 AI TOPS\"")[:-len(" [read]")]
            + "; NVIDIA's AI TOPS are FP4 with sparsity (4000 for the RTX PRO 6000, above); the 2142 this entry carried before was not found on any page [read]")
read("rtx-pro-5000-blackwell", "bf16", 258.0, "derived: 2064 AI TOPS (FP4 with sparsity) / 2 dense / 4 for FP16; the FP16-accumulate rate: whether FP32 accumulate runs at full rate on this part was not confirmed (a database lists half) (" + _pro5000 + ")")
read("rtx-pro-5000-blackwell", "fp8", 516.0, "derived: 2064 AI TOPS (FP4 with sparsity) / 2 dense / 2 for FP8 (" + _pro5000 + ")")
read("rtx-pro-5000-blackwell", "fp4", 1032.0, "2064 AI TOPS (FP4 with sparsity), halved: " + _pro5000)
BMH_P6000 = ("BenchmarkHardware, NVIDIA Quadro P6000 y P5000", "https://benchmarkhardware.com/?p=101867")
read("quadro-p6000", "mem", 24, page(*BMH_P6000, "\"la P6000 ofrece 24GB VRAM GDDR5X\""))
read("quadro-p6000", "bw", 432, page(*BMH_P6000, "\"una interfaz bus de 384 bits y con 432GB/s de banda ancha\""))
OCA_P5000 = ("ocaholic, Nvidia Quadro P6000 e P5000 (announcement)", "https://ocaholic.ch/modules/news/article.php?lang=italian&storyid=15130")
read("quadro-p5000", "mem", 16, page(*OCA_P5000, "\"la P5000, basata sul chip GP104 e dotata di 16GB di memoria GDDR5X\""))
read("rtx-5000-ada", "fp8", 522.2, page(*HMC_5000, "RTX 5000 Ada \"FP8\" \"522.24 TFLOPS Tensor (FP32 Accumulate)\", \"1.04 PFLOPS ... Sparse\": the dense figure"))
read("rtx-5000-ada", "bf16", 261.1, page(*HMC_5000, "RTX 5000 Ada \"BF16\" \"261.12 TFLOPS Tensor\", \"522.24 TFLOPS Tensor Sparse\": the dense figure"))
DPJ = ("Dr. Pranay Jha, The NVIDIA Data-Center GPU Lineup: Hopper vs Blackwell vs Rubin", "https://drpranayjha.com/nvidia-gpu-lineup-hopper-blackwell-rubin/")
read("b300", "mem", 288, page(*DPJ, "\"B300 / Blackwell Ultra (288 GB HBM3e, 8 TB/s, 15 PFLOPS dense FP4)\""))
read("b300", "bw", 8000, page(*DPJ, "\"B300 / Blackwell Ultra (288 GB HBM3e, 8 TB/s ...)\""))

TH_TRTX = ("Tom's Hardware, Nvidia Titan RTX specs and pricing", "https://www.tomshardware.com/news/nvidia-titan-rtx-specs-pricing,38184.html")
PCR_TRTX = ("PCReview, NVIDIA announces Titan RTX graphics card", "https://www.pcreview.co.uk/articles/nvidia-announces-titan-rtx-graphics-card.272/")
read("titan-rtx", "mem", 24, page(*TH_TRTX, "Titan RTX \"Memory Capacity\" \"24GB GDDR6\""))
read("titan-rtx", "bw", 672, page(*TH_TRTX, "Titan RTX \"Memory Clock\" \"14Gbps\", \"Memory Bus\" \"384-bit\", \"Memory Bandwidth\" \"672 GB/s\""))
read("titan-rtx", "bf16", r1(72 * 1770 * 1024 / 1e6), "derived: SMs 72 x boost 1770 MHz x 1024 FLOP/clk/SM (dense FP16 with FP32 accumulate, full rate on TITAN; the per-SM rate of the " + TU_WP + "); SM count and boost clock from the " + page(*PCR_TRTX, "\"72 x streaming multiprocessors\", \"1770 MHz boost clock\""))

FPSB_5070 = ("fpsbench.com, Intel Iris Xe MAX Graphics vs GeForce RTX 5070 (database copy)", "https://fpsbench.com/compare/gpu/intel-iris-xe-max-graphics-vs-nvidia-geforce-rtx-5070")
read("rtx-5070", "bw", 672, page(*FPSB_5070, "RTX 5070 \"28 Gbps effective\", \"Memory Bus\" \"192 bit\", \"Bandwidth\" \"672.0 GB/s\""))

SYS_3080_12 = ("sysrqmts.com, GeForce RTX 3080 12 GB vs RTX A4000 (database copy)", "https://sysrqmts.com/tr/gpus/compare/nvidia-geforce-rtx-3080-12-gb-vs-nvidia-rtx-a4000")
tc_read("rtx-3080-12gb", 70, 1710, GA_WP, page(*SYS_3080_12, "RTX 3080 12 GB \"SM sayısı\" \"70\", \"Saati artır\" \"1710 MHz\""))

SYS_A6000 = ("sysrqmts.com, NVIDIA RTX A6000 vs NVIDIA Tesla P40 (database copy)", "https://sysrqmts.com/es/gpus/compare/nvidia-rtx-a6000-vs-nvidia-tesla-p40")
read("rtx-a6000", "bf16", r1(84 * 1800 * 1024 / 1e6), WS1024.format(sm=84, mhz=1800, wp=GA_WP, pages=page(*SYS_A6000, "RTX A6000 \"Conteo SM\" \"84\", \"Aumento de frecuencia\" \"1800 MHz\"")))
read("rtx-a5500", "bf16", r1(80 * 1665 * 1024 / 1e6), WS1024.format(sm=80, mhz=1665, wp=GA_WP, pages=page(*ASK_A5500, "\"Pipelines - 10240\" (128 per SM), \"Impulso de la velocidad del reloj - 1665 MHz\"")))

SYS_A10 = ("sysrqmts.com, NVIDIA A10 PCIe vs NVIDIA Quadro RTX 4000 (database copy)", "https://sysrqmts.com/ru/gpus/compare/nvidia-a10-pcie-vs-nvidia-quadro-rtx-4000")
read("a10", "bf16", r1(72 * 1695 * 1024 / 1e6), WS1024.format(sm=72, mhz=1695, wp=GA_WP, pages=page(*SYS_A10, "A10 PCIe \"Кол-во SM\" \"72\", \"Буст\" \"1695 MHz\"")))

CPT_6000ADA = ("cputronic.com, NVIDIA RTX 6000 Ada Generation (database copy)", "https://cputronic.com/de/gpu/nvidia-rtx-6000-ada-generation")
_q6000 = page(*CPT_6000ADA, "\"18176 Shading-Einheiten\" (128 per SM, so 142 SMs), \"Boost-Takt\" \"2505MHz\"")
read("rtx-6000-ada", "bf16", r1(142 * 2505 * 1024 / 1e6), WS1024.format(sm=142, mhz=2505, wp=AD_WP, pages=_q6000))
read("rtx-6000-ada", "fp8", r1(142 * 2505 * 2048 / 1e6), "derived: SMs 142 x boost 2505 MHz x 2048 FLOP/clk/SM (dense FP8 with FP32 accumulate, twice the FP16 rate on workstation parts; " + AD_WP + "); SM count and boost clock from the " + _q6000)

CPT_7900XTX = ("cputronic.com, AMD Radeon RX 7900 XTX (database copy)", "https://cputronic.com/en/gpu/amd-radeon-rx-7900-xtx")
CPT_7900XT = ("cputronic.com, AMD Radeon RX 7900 XT (database copy)", "https://cputronic.com/gpu/amd-radeon-rx-7900-xt")
R3X2 = "derived: 2 x the peak FP32 rate (RDNA3 WMMA FP16 runs at twice the dual-issue FP32 rate, the ratio of AMD's published peak half- and single-precision figures); peak FP32 from the "
read("rx-7900-xtx", "bf16", r1(2 * 61.42), R3X2 + page(*CPT_7900XTX, "RX 7900 XTX \"theoretical performance of 61.42 TFLOPS\", \"Boost Clock\" \"2499MHz\""))
read("rx-7900-xt", "bf16", r1(2 * 51.48), R3X2 + page(*CPT_7900XT, "RX 7900 XT \"theoretical performance of 51.48 TFLOPS\", \"Boost Clock\" \"2394MHz\""))

CPT_7800XT = ("cputronic.com, AMD Radeon RX 7800 XT (database copy)", "https://cputronic.com/gpu/amd-radeon-rx-7800-xt")
read("rx-7800-xt", "bf16", r1(2 * 37.32), R3X2 + page(*CPT_7800XT, "RX 7800 XT \"theoretical performance of 37.32 TFLOPS\", \"Boost Clock\" \"2430MHz\""))

FPSB_7600 = ("fpsbench.com, AMD Radeon RX 7600 vs Intel HD Graphics P4600 (database copy)", "https://fpsbench.com/compare/gpu/amd-radeon-rx-7600-vs-intel-hd-graphics-p4600")
read("rx-7600", "bf16", 43.5, page(*FPSB_7600, "RX 7600 \"FP16 (TFLOPS)\" \"43.50 TFLOPS (2:1)\", \"FP32 (TFLOPS)\" \"21.75 TFLOPS\""))

HEXUS_6600XT = ("HEXUS, PowerColor Radeon RX 6600 XT Red Devil review (AMD specification table)", "https://hexus.net/tech/reviews/graphics/148189-powercolor-radeon-rx-6600-xt-red-devil")
FPSB_6800 = ("fpsbench.com, GeForce GT 730A vs AMD Radeon RX 6800 (database copy)", "https://fpsbench.com/compare/gpu/nvidia-geforce-gt-730a-vs-amd-radeon-rx-6800")
read("rx-6800", "fp32", 16.2, page(*HEXUS_6600XT, "Radeon RX 6800 \"Peak GFLOPS (SP)\" \"16,166\"")[:-len(" [read]")] + "; also " + page(*FPSB_6800, "RX 6800 \"FP32 (TFLOPS)\" \"16.17 TFLOPS\""))

KOR_6600 = ("Korsaka reseller listing of the AMD Radeon RX 6600, reproducing AMD's specification table", "https://korsaka.com/shop/tarjeta-de-video-amd-radeon-rx-6600")
read("rx-6600", "mem", 8, page(*KOR_6600, "\"Tamaño máx. de memoria 8 GB\", \"Tipo de memoria GDDR6\""))
read("rx-6600", "bw", 224, page(*KOR_6600, "\"Velocidad de memoria Hasta 14 Gbps\", \"Interfaz de memoria 128-bit\", \"Ancho de banda de memoria Hasta 224 GB/\""))
read("rx-6600", "fp32", 8.9, page(*KOR_6600, "\"Rendimiento de procesamiento de precisión simple máxima 8.93 TFLOPs\""))
read("rx-6600-xt", "fp32", 10.6, page(*HEXUS_6600XT, "Radeon RX 6600 XT \"Peak GFLOPS (SP)\" \"10,605\""))

SWD_6x50 = ("swavedigest.com, AMD Radeon RX 6950 XT, 6750 XT and 6650 XT deliver faster memory and clocks", "https://swavedigest.com/amd-radeon-rx-6950-xt-6760-xt-and-6650-xt-deliver-faster-memory-and-clocks-to-gamers")
read("rx-6750-xt", "fp32", 13.3, page(*SWD_6x50, "RX 6750 XT \"up to 13.31 TFLOPS of FP32\""))
read("rx-6700-xt", "fp32", 13.2, page(*SWD_6x50, "RX 6750 XT \"13.31 TFLOPS of FP32 ... up a touch from 13.21 TFLOPS\" (the RX 6700 XT figure)"))
HMC_6650 = ("hmc-tech.com, AMD Radeon RX 6650 XT vs GIGABYTE Radeon RX 6700 XT Gaming OC (database copy)", "https://hmc-tech.com/gpu/amd-radeon-rx-6650-xt-vs-gigabyte-radeon-rx-6700-xt-gaming-oc")
read("rx-6650-xt", "fp32", 10.8, page(*HMC_6650, "AMD Radeon RX 6650 XT \"FP32 10.79 TFLOPS\""))

SVET_9070 = ("SvětHardware, AMD prý připravuje Radeon RX 9070 GRE (specification table of the RX 9000 cards)", "https://www.svethardware.cz/amd-pry-pripravuje-radeon-rx-9070-gre-ma-mit-48-cu-a-12-gb-vram/61763")
read("rx-9070", "bf16", r1(56 * 2520 * 512 / 1e6), "derived: CUs 56 x boost 2520 MHz x 512 FLOP/clk/CU (vector FP16, twice the dual-issue FP32 rate of 256 FLOP/clk/CU that gives the page's FP32 figure); CU count, boost clock and FP32 from the " + page(*SVET_9070, "Radeon RX 9070 \"Počet CU\" \"56\", \"Boost frekvence\" \"2,52 GHz\", \"Hrubý výkon FP32\" \"36,1 TFLOPS\""))

TC_ARCB = ("TechCommand, The new Intel Arc B580 and B570 graphics are now official", "https://www.techcommand.uk/the-new-intel-arc-b580-and-b570-graphics-are-now-official-price-and-specifications/")
read("arc-b580", "bf16", 116.5, "derived: 233 peak INT8 TOPS (XMX) / 2 for FP16 (" + page(*TC_ARCB, "Arc B580 \"233 TOPS for Artificial Intelligence tasks\"") + ")")
read("arc-b570", "bf16", 101.5, "derived: 203 peak INT8 TOPS (XMX) / 2 for FP16 (" + page(*TC_ARCB, "Arc B570 \"up to 203 TOPS for AI\"") + ")")

GG_2070 = ("GameGPU, GeForce RTX 2070 specification page", "https://pl.gamegpu.com/seria-geforce-rtx-2xx/GeForce-RTX-2070")
read("rtx-2070", "mem", 8, page(*GG_2070, "\"Rozmiar pamięci wideo, MB 8192\""))
read("rtx-2070", "bw", 448, page(*GG_2070, "\"Częstotliwość pamięci (efektywna), MHz 1750 (14000)\", \"Szyna pamięci, bit 256\", \"Przepustowość pamięci, GB/s 448\""))
tc_read("rtx-2070", 36, 1620, TU_WP, page(*GG_2070, "\"36 wieloprocesorów SM\", \"częstotliwość GPU(wzmocnienie), MHz 1410 (1620)\""))

CPT_A2000_12 = ("cputronic.com, NVIDIA RTX A2000 12 GB (database copy)", "https://cputronic.com/pt/gpu/nvidia-rtx-a2000-12-gb")
read("rtx-a2000-12gb", "bf16", r1(26 * 1200 * 1024 / 1e6), WS1024.format(sm=26, mhz=1200, wp=GA_WP, pages=page(*CPT_A2000_12, "\"3328 unidades de sombreamento\" (128 per SM, so 26 SMs), \"Relógio Boost\" \"1200MHz\"")))

IOT_V100 = ("io-tech.fi, NVIDIA esitteli Tesla V100 PCI Express -kiihdyttimen", "https://www.io-tech.fi/uutinen/nvidia-esitteli-tesla-v100-pci-express-kiihdyttimen-tieteelliseen-laskentaan/")
read("v100-pcie-16gb", "bw", 900, page(*IOT_V100, "Tesla V100 PCIe \"16 gigatavua (4 x 4 Gt) 1,75 Gbps:n HBM2-muistia\", \"4096-bittisen muistiväylän\", \"900 Gt/s:n muistikaistaa\""))
read("v100-pcie-16gb", "bf16", 112, page(*IOT_V100, "Tesla V100 PCIe at \"noin 1370 MHz\": \"112 TFLOPSin suorituskykyä Tensor-laskuissa\" (FP16 multiply, FP32 accumulate; Volta has no BF16)"))
APPLE_PL_MACPRO = ("copy of Apple's Polish Mac Pro page (apple.com/pl/mac-pro)", "https://nakenako.serv00.net/https-www.apple.com/pl/mac-pro")
read("apple-m2-ultra", "fp32", 27.2, page(*APPLE_PL_MACPRO, "M2 Ultra \"GPU z nawet 76 rdzeniami osiąga do 27,2 teraflopa mocy graficznej\", \"pamięć graficzna o pojemności do 192 GB\" (the FP32 rate; no matrix units, FP16 at the same rate)"))

ARS_5060 = ("prepmusiclog.com copy of a review, Nvidia RTX 5060 & 5060 Ti review: you can have affordable or future-proof, pick one (specification table)",
            "https://prepmusiclog.com/nvidia-rtx-5060-5060-ti-review-you-can-have-affordable-or-future-proof-pick-one")
for i in ["rtx-5060-ti-8gb", "rtx-5060-ti-16gb"]:
    tc_read(i, 36, 2572, GB_WP, page(*ARS_5060, "RTX 5060 Ti \"CUDA Cores\" \"4,608\" (128 per SM, so 36 SMs), \"Boost Clock\" \"2,572 MHz\"")[:-len(" [read]")]
            + "; also " + page(*KG_50, "RTX 5060 Ti \"SMs\" \"36\", \"CUDA Cores\" \"4608\""))
tc_read("rtx-5060", 30, 2497, GB_WP, page(*ARS_5060, "RTX 5060 \"CUDA Cores\" \"3,840\" (128 per SM, so 30 SMs), \"Boost Clock\" \"2,497 MHz\""))
ITP_1060 = ("iTechPost, NVIDIA GeForce GTX 1060 6GB review", "https://itechpost.com/articles/22495/20160721/nvidia-geforce-gtx-1060-6gb-review.htm")
read("gtx-1060-6gb", "fp32", 4.4, "derived: 1280 CUDA cores x boost 1708 MHz x 2 FLOP/clk (" + page(*ITP_1060, "\"1,280 CUDA cores\", \"boost clock speed rated at 1708 MHz\", \"hit a performance of 4.35 TFLOPS\"") + ")")

CPT_2060S = ("cputronic.com, NVIDIA GeForce RTX 2060 SUPER (database copy)", "https://cputronic.com/en/gpu/nvidia-geforce-rtx-2060-super")
tc_read("rtx-2060-super", 34, 1650, TU_WP, page(*CPT_2060S, "\"2176 shading units\" (64 per SM, so 34 SMs; \"RT Cores\" \"34\"), \"Boost Clock\" \"1650MHz\""))

ADB_A5000 = ("cpu-gpu.alldbin.com, Radeon RX 6900 XTX and RTX A5000 comparison (database copy)", "https://cpu-gpu.alldbin.com/graphics-card-comparison/Radeon-RX-6900-XTX-and-RTX-A5000-comparison.html")
read("rtx-a5000", "mem", 24, page(*ADB_A5000, "RTX A5000 \"Maximum RAM amount\" \"24 GB\", \"Memory type\" \"GDDR6\""))
read("rtx-a5000", "bw", 768, page(*ADB_A5000, "RTX A5000 \"Memory bus width\" \"384 Bit\", \"Memory bandwidth\" \"768.0 GB/s\""))
read("rtx-a5000", "bf16", r1(64 * 1695 * 1024 / 1e6), WS1024.format(sm=64, mhz=1695, wp=GA_WP, pages=page(*ADB_A5000, "RTX A5000 \"Pipelines / CUDA cores\" \"8192\" (128 per SM, so 64 SMs), \"Boost clock speed\" \"1695 MHz\"")))

# --- second pass (issue #30): figures re-read on a public page, and conflicts settled or explained ---
WOLK = ("wolksoft.co copy of a Gigabyte GeForce RTX 4070 Ti review, specification table (the RTX 3070 Ti column)", "https://wolksoft.co/?p=27083")
PRAECO = ("praeco-medii-aevi.de copy of a GeForce RTX 4070 Ti review", "https://praeco-medii-aevi.de/nvidia-geforce-rtx-4070-ti-test-verkauft-um-mit-1440p-zu-spielen-und-4k-ist-nicht-einschuechternd")
CHAP = ("El Chapuzas Informático, Zotac lanza una GeForce RTX 3070 Ti con chip GA102", "https://elchapuzasinformatico.com/2022/10/zotac-geforce-rtx-3070-ti-con-chip-ga102-150/")
read("rtx-3070-ti", "mem", 8, page(*WOLK, "RTX 3070 Ti \"memoria dedicada\" \"8 GB GDDR6X\""))
read("rtx-3070-ti", "bw", 608, page(*PRAECO, "\"Beispielsweise hat die GeForce RTX 3070 Ti 608 GB/s und die RTX 3080 760 GB/s\""))
tc_read("rtx-3070-ti", 48, 1770, GA_WP, page(*WOLK, "RTX 3070 Ti \"núcleos cuda\" \"6.144\", \"unidades de cálculo (cu)\" \"48\", \"frecuencia de reloj máxima\" \"1,77 GHz\"")[:-len(" [read]")]
        + "; also " + page(*CHAP, "\"6.144 CUDA Cores\", \"El modelo de referencia de NVIDIA se mueve en los 290W a 1.770 MHz\""))
# RTX 3080 Ti: memory size, bus width, CUDA cores and boost clock re-read on a repository copy of NVIDIA's
# spec page (third pass); the 19 Gbps memory speed is still only in pre-launch tables, so bandwidth stays [recall].
TH_IT_3080TI = "Tom's Hardware Italia pre-launch table, 2021-03 (https://www.tomshw.it/hardware/nvidia-si-allontana-luscita-della-geforce-rtx-3080-ti/)"

# Tesla P100 SXM2: NVIDIA's launch overview and the launch reports say 720 GB/s (1.4 Gbps x 4096-bit);
# the later NVLink datasheet and resellers reproducing it say 732. 732 is kept: a ceiling must not sit
# below what the card can do, and it is the figure NVIDIA's current datasheet prints.
MICROWAY = ("Microway, NVIDIA Tesla P100 NVLink 16GB GPU Accelerator (Pascal GP100 SXM2) Up Close", "https://www.microway.com/hpc-tech-tips/nvidia-tesla-p100-nvlink-16gb-gpu-accelerator-pascal-gp100-sxm2-close/")
read("tesla-p100-sxm2", "bw", 732, page(*MICROWAY, "SXM2 P100: \"16GB of on-die HBM2 CoWoS GPU memory, with bandwidths up to 732GB/s\"")[:-len(" [read]")]
     + "; NVIDIA's Tesla P100 technical overview (copy at https://www.scribd.com/document/785187805/nvidia-teslap100-techoverview) says \"Tesla P100 delivers 720 GB/s\" and "
     + page(*T4G, "the Mezzanine column \"1.4Gbps HBM2\", \"720GB/sec\"")[:-len(" [read]")] + ": the two figures are 1.43 and 1.4 Gbps x 4096-bit; 732 is kept [read]")

AVM = ("AV Magazine, AMD: arrivano le GPU Radeon RX 7700 XT e RX 7800 XT (Gamescom launch)", "https://www.avmagazine.it/news/gaming/amd-arrivano-le-gpu-radeon-rx-7700-xt-e-rx-7800-xt_20570.html")
read("rx-7700-xt", "mem", 12, page(*AVM, "RX 7700 XT: \"12 GB di VRAM GDDR6 a 18 Gbps, un bus a 192-bit\""))
read("rx-7700-xt", "bw", 432, "derived: 18 Gbps x 192-bit = 432 GB/s (" + page(*AVM, "RX 7700 XT: \"12 GB di VRAM GDDR6 a 18 Gbps, un bus a 192-bit\"") + ")")
read("rx-7700-xt", "bf16", r1(2 * 6912 * 2 * 2544 / 1e6), "derived: 2 x the peak FP32 rate (RDNA3 WMMA FP16 runs at twice the dual-issue FP32 rate, the ratio of AMD's published peak half- and single-precision figures); FP32 = 6,912 ALUs x 2 FLOP x boost 2544 MHz = 35.17 TFLOPS ("
     + page(*AVM, "RX 7700 XT: \"54 compute unit\", \"3.456 stream processor e 6.912 ALU\", \"un game clock di 2.171 MHz che diventa 2.544 in boost\"") + ")")
PSC_7600XT = ("pcspecchart.com, RX 7600 XT specifications (database copy)", "https://pcspecchart.com/pc_parts/gpu/10")
read("rx-7600-xt", "bf16", r1(2 * 2048 * 2 * 2 * 2755 / 1e6), "derived: 2 x the peak FP32 rate (RDNA3 WMMA FP16 runs at twice the dual-issue FP32 rate); FP32 = 2048 stream processors x 2 (dual issue) x 2 FLOP x boost 2755 MHz = 22.57 TFLOPS ("
     + page(*PSC_7600XT, "RX 7600 XT \"2048 cores\", \"a boost clock reaching up to 2755 MHz\", \"16 GB of GDDR6 memory across a 128-bit bus\"")[:-len(" [read]")]
     + "; cputronic.com and siliconcat.net list an 8 GB \"RX 7600 XT\" at 2615 MHz that is not the shipped 16 GB card: not followed) [read]")
TT_9060 = ("TweakTown, AMD confirms Radeon RX 9060 XT, 8GB and 16GB models coming (AMD's Computex pre-brief)", "https://www.tweaktown.com/news/105296/amd-confirms-radeon-rx-9060-xt-8gb-and-16gb-models-coming/index.html")
for i in ("rx-9060-xt-16gb", "rx-9060-xt-8gb"):
    read(i, "bf16", r1(32 * 3130 * 512 / 1e6), "derived: CUs 32 x boost 3130 MHz x 512 FLOP/clk/CU (vector FP16, twice the dual-issue FP32 rate of 256 FLOP/clk/CU, as for the RX 9070) ("
         + page(*TT_9060, "\"8GB or 16GB, 32 CUs, FSR 4-ready, 3.13 GHz\"") + ")")
HWLX_W6800 = ("Hardwareluxx, AMD packt Big Navi in Radeon-Pro-Karten (Radeon Pro W6800 launch)", "https://www.hardwareluxx.de/index.php/news/hardware/grafikkarten/56343-amd-packt-big-navi-in-radeon-pro-karten.html")
read("radeon-pro-w6800", "mem", 32, page(*HWLX_W6800, "Radeon Pro W6800: \"32 GB GDDR6X an einem 256 Bit breiten Speicherinterface\" (the card is GDDR6)"))
read("radeon-pro-w6800", "bw", 512, page(*HWLX_W6800, "Radeon Pro W6800: \"512 GB/s an Speicherbandbreite sind die Folge\""))

# Apple
ASKG_M1 = ("askgeek.io, Apple M1 (8-core GPU) (database copy)", "https://askgeek.io/en/cpus/Apple/M1-8-core-GPU")
read("apple-m1", "bw", 68.25, "derived: LPDDR4X at 4266 MT/s x 128-bit bus = 68.26 GB/s, which Apple's figure of 68.25 truncates ("
     + page(*HN_M1, "\"This uses 4266 MT/s LPDDR4X SDRAM\"")[:-len(" [read]")] + "; "
     + page(*ASKG_M1, "\"Supported memory types: LPDDR4X-4266\"; its M1 8-core GPU page gives \"Memory bus width - 128 bit\" (and a \"Memory bandwidth\" of 66.67 GB/s that 4266 MT/s x 128 bit does not give: not followed)") + ")")
ASKG_M2 = ("askgeek.io, Apple M2 (10-core GPU) (database copy)", "https://askgeek.io/es/cpus/Apple/M2-10-core-GPU")
read("apple-m2", "fp32", 3.6, page(*ASKG_M2, "M2 10-core \"Peak Single Precision (FP32) Performance | 3.578 TFLOPS\" at \"1398 MHz\" (FP32; no matrix units, FP16 at the same rate; Apple's own figure was not found)"))
FXW_M2P = ("firstxw.com, MacBook with M2 Pro exposed (launch report)", "https://firstxw.com/view/308363.html")
RG_M2P = ("radargit.com, Apple M2 Pro GPU (19-core) specs (database copy)", "https://radargit.com/2025/03/20/apple-m2-pro-gpu-19-core-benchmark-tests-and-specs/")
read("apple-m2-pro", "fp32", 6.8, page(*FXW_M2P, "M2 Pro 19-core GPU \"with 2432 cores\", \"computing power has also increased from 5.2 TFLOPS to 6.8 TFLOPS\"")[:-len(" [read]")]
     + "; " + page(*RG_M2P, "M2 Pro GPU (19-core) \"Boost Clock | 1398 MHz\", \"Shading Units | 2432\", \"FLOPS (FP32) | 6.8 TFLOPS\"")[:-len(" [read]")] + " (FP32; no matrix units, FP16 at the same rate) [read]")
HMC_M2M = ("hmc-tech.com, Apple 9-core M3 vs 38-core M2 Max (database copy)", "https://hmc-tech.com/gpu/apple-9-core-m3-fl-vs-apple-38-core-m2-max")
read("apple-m2-max", "fp32", 13.6, page(*HMC_M2M, "38-Core M2 Max \"4864 Shaders\", \"1398MHz\", \"FP32 13.6 TFLOPS\", \"FP16 13.6 TFLOPS\" (no matrix units; Apple's own figure was not found)"))
CPUM_M1U = ("cpu-monkey.com, Apple M1 Ultra (64-GPU) (database copy)", "https://www.cpu-monkey.com/en/cpu-apple_m1_ultra_64_gpu")
TECHID_M1U = ("Techidence, Apple M1 Ultra: the most powerful Apple chip stands out with 20 CPU cores and 64 GPU cores (launch report)",
              "https://techidence.com/apple-m1-ultra-the-most-powerful-apple-chip-stands-out-with-20-cpu-cores-and-64-gpu-cores/")
read("apple-m1-ultra", "fp32", 21, page(*TECHID_M1U, "\"It incorporates 20 CPU cores, 64 cores for graphics, and has a power of 21 TFLOPS\" (FP32; no matrix units, FP16 at the same rate)")[:-len(" [read]")]
     + "; " + page(*CPUM_M1U, "\"an FP32 processing performance (single precision) of 21.2 TFLOP/s\"")[:-len(" [read]")]
     + "; twice the M1 Max's 10.4 TF (Techworm mirror, above) is 20.8 [read]")

ADB_A2000 = ("cpu-gpu.alldbin.com, GeForce RTX 2060 TU104 and RTX A2000 comparison (database copy)", "https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-2060-TU104-and-RTX-A2000-comparison.html")
read("rtx-a2000-6gb", "bf16", r1(26 * 1200 * 1024 / 1e6), WS1024.format(sm=26, mhz=1200, wp=GA_WP, pages=page(*ADB_A2000,
     "RTX A2000 \"Boost clock speed\" \"1200 MHz\", \"Pipelines / CUDA cores\" \"3328\" (128 per SM, so 26 SMs), \"Maximum RAM amount\" \"6 GB\"")))
SYS_A2000_12 = ("sysrqmts.com, NVIDIA GeForce RTX 2060 TU104 vs NVIDIA RTX A2000 12 GB (database copy)", "https://sysrqmts.com/es/gpus/compare/nvidia-geforce-rtx-2060-tu104-vs-nvidia-rtx-a2000-12-gb")
read("rtx-a2000-12gb", "bw", 288, page(*SYS_A2000_12, "RTX A2000 12 GB \"12 Gbps effective\", \"Bus de la memoria\" \"192 bit\", \"Ancho de banda\" \"288.0 GB/s\""))
read("rtx-a4500", "bf16", r1(56 * 1650 * 1024 / 1e6), WS1024.format(sm=56, mhz=1650, wp=GA_WP, pages=page(*CPT_A4500,
     "RTX A4500 \"More Shading Units: 7168\" (128 per SM, so 56 SMs), \"Boost Clock\" \"1650MHz\"")[:-len(" [read]")]
     + "; NVIDIA's datasheet figure of 189.2 TFLOPS with sparsity, halved, is the same 94.6 [read]"))
MTP_ARC = ("Meterpreter, Intel confirms that ARC A770/A750 will be launched soon (Intel interview)", "https://meterpreter.org/intel-confirms-that-arc-a770-a750-will-be-launched-soon")
read("arc-a770-8gb", "mem", 8, page(*MTP_ARC, "\"ARC A770 supports 8GB or 16GB video memory configuration, Limited Edition only provides a 16GB version\""))
WF_A770 = ("WinFuture, Intel Arc A770 im Test (ASRock Arc A770 Phantom Gaming OC, the 8 GB card)", "https://winfuture.de/videos/Hardware/Intel-Arc-A770-im-Test-Noch-keine-Konkurrenz-fuer-Nvidia-und-AMD-24708.html")
read("arc-a770-8gb", "bw", 512, "derived: a 2000 MHz GDDR6 memory clock is 16 Gbps per pin (GDDR6 moves 8 bits per pin per clock), x 256-bit / 8 = 512 GB/s ("
     + page(*WF_A770, "\"Die Intel Arc A770 ist mit 32 sogenannten Xe-Cores\", \"Der 8 GB große GDDR6-Videospeicher taktet mit 2000 MHz und ist an einem 256-Bit-Interface angebunden\"") + ")")
SC_4000ADA = ("siliconcat.net, NVIDIA RTX 4000 Ada Generation (database copy)", "https://siliconcat.net/gpu/nvidia-rtx-4000-ada-generation")
_ada4000 = ("; unsettled: from the SM count and boost clock, " + page(*SC_4000ADA, "\"Boost Clock\" \"2175MHz\", \"Shading Units\" \"6144\", \"SM Count\" \"48\"")[:-len(" [read]")]
            + ", 48 SMs x 2175 MHz x 1024 FLOP/clk/SM (the rate that reproduces NVIDIA's RTX 6000 Ada figure) gives 106.9 TFLOPS FP16, 213.8 FP8; NVIDIA's 327.6 corresponds to about 1.67 GHz."
            + " The datasheet figure is kept until a primary page is re-read")
read("rtx-4000-ada", "bf16", 81.9, f"derived: 327.6 AI TOPS (FP8 with sparsity) / 2 dense / 2 for FP16 ({NVWS})" + _ada4000)
read("rtx-4000-ada", "fp8", 163.8, f"{NVWS}: 327.6 AI TOPS (FP8 with sparsity), halved" + _ada4000)

PCG_1650 = ("PC Gamer, Nvidia GeForce GTX 1650 review (specification box)", "https://pcgamer.com/au/nvidia-geforce-gtx-1650-review")
read("gtx-1650", "mem", 4, page(*PCG_1650, "\"VRAM: 4GB GDDR5\", \"Bus width: 128-bit\", \"Bandwidth: 128GB/s\""))
CPT_P4000 = ("cputronic.com, NVIDIA Quadro P4000 (database copy)", "https://cputronic.com/es/gpu/nvidia-quadro-p4000")
ELP_P4000 = ("ElProCus, NVIDIA Quadro P4000: Specifications, Architecture", "https://www.elprocus.com/nvidia-quadro-p4000")
read("quadro-p4000", "mem", 8, page(*CPT_P4000, "\"Tamaño de memoria\" \"8GB\", \"Tipo de memoria\" \"GDDR5\""))
read("quadro-p4000", "fp32", 5.3, page(*CPT_P4000, "\"1792 unidades de sombreado\", \"un reloj de aumento de 1480MHz\", \"un rendimiento teórico de 5.304 TFLOPS\""))
read("quadro-p4000", "bw", 243, "derived: GDDR5 at 1901 MHz (7.6 Gbps effective) x 256-bit = 243.3 GB/s ("
     + page(*CPT_P4000, "\"el reloj de memoria de 1901MHz\"")[:-len(" [read]")] + "; " + page(*ELP_P4000, "\"GDDR5 memory – 8 GB with the GPU using a 256-bit memory interface\"") + ")")
AT_QP = ("AnandTech (labs mirror), NVIDIA Announces Quadro Pascal Family: Quadro P6000 & P5000 (specification table)",
         "http://labs.anandtech.com/Show/Index/10516?cPage=3&all=False&sort=0&page=1&slug=nvidia-announces-quadro-pascal-family-quadro-p6000-p5000")
read("quadro-p5000", "bw", 288, "derived: 9 Gbps GDDR5X x 256-bit = 288 GB/s (" + page(*AT_QP, "P5000 \"Memory Clock\" \"9Gbps GDDR5X\", \"Memory Bus Width\" \"256-bit\"")[:-len(" [read]")]
     + "; ocaholic's announcement report gives 320 GB/s, the 10 Gbps GDDR5X first assumed: not followed) [read]")
read("quadro-p5000", "fp32", 8.9, "derived: 2560 CUDA cores x boost ~1730 MHz x 2 FLOP/clk = 8.86 TFLOPS (" + page(*AT_QP, "P5000 \"CUDA Cores\" \"2560\", \"Boost Clock\" \"~1730MHz\"") + ")")
MTN_P6000 = ("MustTechNews, Quadro P6000, the fastest GPU by Nvidia (announcement report)", "https://www.musttechnews.com/quadro-p6000-fastest-gpu-nvidia/")
read("quadro-p6000", "fp32", 12.0, page(*BMH_P6000, "\"3840 Cuda cores\", \"un modo boost de 1530 MHz\", \"la P6000 ofrece una potencia de cálculo de 12 TFLOPs (FP32)\"")[:-len(" [read]")]
     + "; " + page(*MTN_P6000, "\"It promises to deliver as many as twelve teraflops of single-precision performance\"")[:-len(" [read]")]
     + "; " + page(*AT_QP, "P6000 \"CUDA Cores\" \"3840\", \"Boost Clock\" \"~1560MHz\" (3840 x 1560 MHz x 2 = 11.98)")[:-len(" [read]")]
     + ". Corrected from an earlier 12.6 written from memory, which no page read gives [read]")
read("quadro-rtx-6000", "bf16", r1(72 * 1770 * 1024 / 1e6), "derived: SMs 72 x boost 1770 MHz x 1024 FLOP/clk/SM (dense FP16 with FP32 accumulate, full rate on Quadro; the per-SM rate of the "
     + TU_WP + "); SM count and boost clock from the " + page(*SYS_QR6, "Quadro RTX 6000 \"Comptage SM\" \"72\", \"Boost clock\" \"1770 MHz\"")[:-len(" [read]")]
     + " (NVIDIA's datasheet figure is the same 130.5; Turing has no BF16) [read]")

TOPCPU_PRO6000 = ("topcpu.net, Nvidia launches 96GB RTX 5090 model (RTX PRO 6000 Blackwell at GTC 2025)", "https://www.topcpu.net/fr/news/nvidia-launches-96gb-rtx-5090-model-with-a-whopping-price-tag-of-10000")
_p6 = page(*TOPCPU_PRO6000, "\"188 processeurs de flux (SM)\", \"Nvidia revendique des performances jusqu'à 125 TFLOPS en virgule flottante de précision simple (FP32) et jusqu'à 4000 TOPS de calcul d'IA (basé sur la précision FP4)\" (NVIDIA's AI TOPS are FP4 with sparsity)")
read("rtx-pro-6000-blackwell", "fp4", 2000, "4000.0 AI TOPS (FP4 with sparsity), halved: " + _p6)
read("rtx-pro-6000-blackwell", "fp8", 1000, "derived: 4000.0 AI TOPS (FP4 with sparsity) / 2 dense / 2 for FP8 (" + _p6 + ")")
read("rtx-pro-6000-blackwell", "bf16", 500, "derived: 4000.0 AI TOPS (FP4 with sparsity) / 2 dense / 4 for FP16 (" + _p6
     + "); the FP16-accumulate rate: whether FP32 accumulate runs at full rate on this part was not confirmed (a database lists half)")
AIW_NVL72 = ("AI Wiki, NVIDIA GB200 NVL72 (citing NVIDIA's product page)", "https://aiwiki.ai/wiki/nvidia_gb200_nvl72")
HMC_GB200 = ("hmc-tech.com, NVIDIA GB200 vs NVIDIA A2 (database copy; figures per GB200 superchip of two Blackwell GPUs)", "https://hmc-tech.com/gpu/nvidia-gb200-vs-nvidia-a2")
read("gb200", "mem", 186, "derived: 13.4 TB / 72 GPUs = 186 GB (" + page(*AIW_NVL72, "\"about 13.4 TB of unified GPU memory\" over \"72 Blackwell GPUs\"") + ")")
read("gb200", "fp4", 10000, "derived: per superchip figure / 2 GPUs (" + page(*HMC_GB200, "GB200 \"FP4\" \"20 PFLOPS Tensor\", \"40 PFLOPS Tensor Sparse\"")[:-len(" [read]")]
     + "; " + page(*AIW_NVL72, "\"a peak of 1.4 exaFLOPS of FP4 inference compute ... per rack\" (72 GPUs; NVIDIA's sparse figure)") + ")")
read("gb200", "fp8", 5000, "derived: per superchip figure / 2 GPUs (" + page(*HMC_GB200, "GB200 \"FP8\" \"10 PFLOPS Tensor (FP32 Accumulate)\", \"20 PFLOPS Tensor (FP32 Accumulate) Sparse\"")[:-len(" [read]")]
     + "; " + page(*AIW_NVL72, "\"720 petaFLOPS of FP8 training compute per rack\" (72 GPUs; NVIDIA's sparse figure)") + ")")
read("gb200", "bf16", 2500, "derived: per superchip figure / 2 GPUs (" + page(*HMC_GB200, "GB200 \"BF16\" \"5 PFLOPS Tensor\", \"10 PFLOPS Tensor Sparse\"") + ")")
SPH_GH200 = ("Spheron, NVIDIA GH200 Grace Hopper Superchip: Architecture and Performance Guide", "https://spheron.network/blog/nvidia-gh200-guide")
read("gh200-96gb", "mem", 96, page(*SPH_GH200, "\"576 GB of unified, coherent memory: 96 GB of HBM3 on the GPU side and 480 GB of LPDDR5X on the CPU side\""))

_q4500 = page(*ASKG_4500, "\"Pipelines - 7680\" (128 per SM, so 60 SMs), \"Impulso de la velocidad del reloj - 2580 MHz\"")
read("rtx-4500-ada", "bf16", r1(60 * 2580 * 1024 / 1e6), WS1024.format(sm=60, mhz=2580, wp=AD_WP, pages=_q4500[:-len(" [read]")]
     + "; NVIDIA's datasheet figure of 634.0 AI TOPS (FP8 with sparsity) / 4 is the same 158.5 [read]"))
read("rtx-4500-ada", "fp8", r1(60 * 2580 * 2048 / 1e6), "derived: SMs 60 x boost 2580 MHz x 2048 FLOP/clk/SM (dense FP8 with FP32 accumulate, twice the FP16 rate on workstation parts; "
     + AD_WP + "); SM count and boost clock from the " + _q4500)

read("rx-7900-gre", "bf16", r1(2 * 5120 * 2 * 2 * 2245 / 1e6), "derived: 2 x the peak FP32 rate (RDNA3 WMMA FP16 runs at twice the dual-issue FP32 rate); FP32 = 5120 stream processors x 2 (dual issue) x 2 FLOP x boost 2245 MHz = 45.98 TFLOPS ("
     + page(*CN_GRE, "\"aktivních 80 CU, neboli 5120 shaderů\", \"5120 shaderů má podobnou boostovou frekvenci (2245 MHz)\"") + ")")

# --- third pass (issue #30): repository copies of vendor spec pages that name their vendor source ---------
def repo_copy(vendor, vendor_url, repo, path, commit=None):
    """A vendor page read in a public repository that reproduces it and names it as its source."""
    at = commit or "HEAD"
    return (f"{vendor} ({vendor_url}), read in a repository copy: github.com/{repo} {path}",
            f"https://github.com/{repo}/blob/{at}/{path}")

NV_5000ADA_DS = ("NVIDIA RTX 5000 Ada Generation datasheet", "https://resources.nvidia.com/en-us-briefcase-for-datasheets/rtx-5000-ada-datashe")
read("rtx-5000-ada", "bw", 576, page(*repo_copy(*NV_5000ADA_DS, "atineoSE/coding-model-seeks-gpu", "pipeline/pipeline/sources/rtx5000ada_specs.md",
     "ff052946489e8bb55dce164802bdb7c01251fde6"), "\"Memory Interface\" \"256 bit\", \"Memory Bandwidth\" \"576GB/s\""))


V100_DS = ("NVIDIA Tesla V100 datasheet", "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf")
GUTS_V100 = repo_copy(*V100_DS, "cx2a/Guts", "01_warmup/README.md")
_guts = " (\"Numerical rows of V100 Datasheet\"; a stored version of the file; another stored version, commit a983510, lists only the A100)"
read("v100s-pcie-32gb", "mem", 32, page(*GUTS_V100, "V100S PCIe column: \"GPU Memory\" \"32 GB HBM2\"" + _guts))
read("v100s-pcie-32gb", "bw", 1134, page(*GUTS_V100, "V100S PCIe column: \"Memory Bandwidth\" \"1134 GB/sec\"" + _guts))
read("v100s-pcie-32gb", "bf16", 130, page(*GUTS_V100, "V100S PCIe column: \"Tensor Performance\" \"130 TFLOPS\" (FP16; Volta has no BF16)" + _guts)[:-len(" [read]")]
     + "; also " + page(*repo_copy(*V100_DS, "Lightning-AI/pytorch-lightning", "src/lightning/fabric/utilities/throughput.py"),
     "\"v100s-pcie\": {... torch.float16: 130e12} under a comment naming that datasheet"))

A30_DS = ("NVIDIA A30 datasheet", "https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf")
TRT_A30 = repo_copy(*A30_DS, "NVIDIA/TensorRT-LLM", "tensorrt_llm/auto_parallel/cluster_info.py", "16d2467ea8e3b45d7d9555010c2ad018d006d5c1")
_trt = " (NVIDIA's own repository; the entry is commented \"from\" that datasheet)"
read("a30", "mem", 24, page(*TRT_A30, "\"A30\": ClusterInfo(... memory_budget_per_device=24 ...)" + _trt))
read("a30", "bw", 933, page(*TRT_A30, "\"A30\": ClusterInfo(... memory_bw=933 ...)" + _trt))
read("a30", "bf16", 165, page(*TRT_A30, "\"A30\": MathThroughput(... float16=165, bfloat16=165 ...): the dense rate, half the datasheet's 330 with sparsity" + _trt))

GH200_DS = ("NVIDIA GH200 Grace Hopper Superchip datasheet", "https://nvdam.widen.net/s/rrgqqnpbz8/grace-datasheet-gh200-grace-hopper-superchip-3773000")
ATI_GH200 = repo_copy(*GH200_DS, "atineoSE/coding-model-seeks-gpu", "pipeline/pipeline/sources/gh200_specs.md", "ff052946489e8bb55dce164802bdb7c01251fde6")
_gh_bf16 = "\"BFLOAT16 Tensor Core\" \"1,979 teraFLOPS* | 990 teraFLOPS\" (* with sparsity): the dense figure; 989 is 1,979 halved and rounded down, as for the H100 SXM"
_gh_fp8 = "\"FP8 Tensor Core\" \"3,958 teraFLOPS* | 1,979 teraFLOPS\" (* with sparsity): the dense figure"
read("gh200-96gb", "bw", 4000, page(*ATI_GH200, "GH200 column: \"High-bandwidth memory (HBM) size\" \"96GB HBM3 | 144GB HBM3e\", \"Memory bandwidth\" \"Up to 4TB/s | Up to 4.9TB/s\" (the first figure of each pair)"))
read("gh200-144gb", "mem", 144, page(*ATI_GH200, "GH200 column: \"High-bandwidth memory (HBM) size\" \"96GB HBM3 | 144GB HBM3e\""))
read("gh200-144gb", "bw", 4900, page(*ATI_GH200, "GH200 column: \"Memory bandwidth\" \"Up to 4TB/s | Up to 4.9TB/s\" (the second figure, for 144GB HBM3e)"))
for i in ("gh200-96gb", "gh200-144gb"):
    read(i, "bf16", 989, page(*ATI_GH200, "GH200 column (one compute column for both memory options): " + _gh_bf16))
    read(i, "fp8", 1979, page(*ATI_GH200, "GH200 column (one compute column for both memory options): " + _gh_fp8))

BW_DS = ("NVIDIA Blackwell datasheet", "https://nvdam.widen.net/s/wwnsxrhm2w/blackwell-datasheet-3384703")
read("gb200", "bw", 8000, page(*repo_copy(*BW_DS, "atineoSE/coding-model-seeks-gpu", "pipeline/pipeline/sources/gb200_specs.md", "e527ad937f71557ee8169ad342ad54a2509133d9"),
     "\"Individual Blackwell GPU Specifications\", GB200 NVL72 (per GPU) column: \"GPU Memory | Bandwidth\" \"186 GB HBM3E | 8 TB/s\""))

GEEK_QRTX = ("Geektopia, Nvidia anuncia las tres primeras Quadro RTX que usan la nueva GPU Turing (SIGGRAPH 2018 launch table)",
             "https://geektopia.es/es/technology/2018/08/14/noticias/nvidia-anuncia-las-tres-primeras-quadro-rtx-que-usan-la-nueva-gpu-turing.html")
SQF_QRTX = ("Squadfill (after Eurogamer), Nvidia unveils new Turing architecture and teases RTX 2080", "https://squadfill.com/2018/08/14/nvidia-unveils-new-turing-architecture-and-teases-rtx-2080")
read("quadro-rtx-8000", "bw", 672, "derived: 14 Gbps GDDR6 x 384-bit = 672 GB/s (" + page(*GEEK_QRTX, "RTX 8000 column: \"Frec. memoria\" \"14 Gb/s GDDR6\", \"Bus memoria\" \"384 bits\", \"VRAM\" \"48 GB\"")[:-len(" [read]")]
     + "; " + page(*SQF_QRTX, "\"The 'big chip' offering delivers 672GB/s of bandwidth\" (the 4608-core RTX 8000 and 6000)")[:-len(" [read]")]
     + "; " + page(*BTO, "RTX 8000 column: \"メモリインターフェース\" \"384-bit\"") + ")")
read("quadro-rtx-8000", "bf16", 130.5, "derived: the dense FP16 tensor rate is 8 times the FP32 rate on Quadro Turing (1024 against 128 FLOP/clk/SM, the per-SM rates of the "
     + TU_WP + "): " + page(*BTO, "RTX 8000 / RTX 6000 column: \"CUDA Core\" \"4608\" (64 per SM, so 72 SMs), \"FP32\" \"16.3TFlops\"")[:-len(" [read]")]
     + " gives 130.4; 130.5 = 72 SMs x 1770 MHz x 1024 (the boost clock read for the Quadro RTX 6000, the same TU102 configuration) is kept, inside the rounding of the 16.3 (16.25 to 16.35 gives 130.0 to 130.8); Turing has no BF16 [read]")

# --- fourth pass (issue #30): the figures still "[recall]" read on a public page; conflicts noted ---------
GKL_B300 = ("Glenn K. Lockwood, B300 notes (citing NVIDIA)", "https://glennklockwood.com/garden/processors/B300")
FM_B300 = ("FiberMall, NVIDIA HGX B300 NVL16 (NVIDIA's HGX specification table)", "https://fibermall.com/blog/?p=17161")
read("b300", "bf16", 2250, page(*GKL_B300, "\"The HGX variant of B300 has similar performance to B200\": \"FP16 | 2250 | 4500\", \"BF16 | 2250 | 4500\" (matrix dense | sparse TFLOPS)")[:-len(" [read]")]
     + "; " + page(*FM_B300, "HGX B300 \"FP16/BF16 Tensor Core*\" \"36 PFLOPS\" (* with sparsity) for 8 GPU packages: 4.5 per GPU, halved"))
read("b300", "fp8", 4500, page(*GKL_B300, "\"FP8 | 4500 | 9000\" (matrix dense | sparse TFLOPS)")[:-len(" [read]")]
     + "; " + page(*FM_B300, "HGX B300 \"FP8/FP6 Tensor Core*\" \"72 PFLOPS\" (* with sparsity) for 8 GPU packages: 9 per GPU, halved"))

ROCM_SPECS = ("AMD ROCm documentation, AMD GPU specifications (https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html), "
              "read in its source: github.com/ROCm/rocm-docs docs/reference/gpu-specs.rst",
              "https://github.com/ROCm/rocm-docs/blob/2b48ffc7c7df6af2687bf2c54062d939ee503c60/docs/reference/gpu-specs.rst")
read("mi50-32gb", "mem", 32, page(*ROCM_SPECS, "Instinct table, row \"MI50 (32GB)\": \"GCN5.1\", \"gfx906\", VRAM (GiB) \"32\", Compute Units \"60\" (and a separate \"MI50 (16GB)\" row with \"16\")"))
read("radeon-pro-w7800", "mem", 32, page(*ROCM_SPECS, "Radeon PRO table, row \"Radeon PRO W7800\": \"RDNA3\", \"gfx1100\", VRAM (GiB) \"32\", Compute Units \"70\" (the \"Radeon PRO W7800 48GB\" is a separate row)"))
HF_W7800 = ("Hugging Face hardware list, AMD PRO W7800 (database copy)", "https://huggingface.co/hardware/pro-w7800")
HF_W7900 = ("Hugging Face hardware list, AMD PRO W7900 (database copy)", "https://huggingface.co/hardware/pro-w7900")

read("radeon-pro-w7800", "bf16", 90.5, page(*HF_W7800, "\"PRO W7800\", \"TFLOPS 90.5\" (AMD's peak half-precision figure; the page's \"Memory 48GB\" is the W7800 48GB, the same 70 CUs)")[:-len(" [read]")]
     + "; consistent with " + page(*ROCM_SPECS, "\"Radeon PRO W7800\": Compute Units \"70\": 70 CUs x 512 FP16 FLOP/clk/CU (RDNA3, twice the dual-issue FP32 rate) gives 90.5 at a 2.525 GHz boost clock (a clock neither page states)"))
read("radeon-pro-w7900", "bf16", 122.6, page(*HF_W7900, "\"PRO W7900\", \"Memory 48GB\", \"TFLOPS 122.6\" (AMD's peak half-precision figure)")[:-len(" [read]")]
     + "; consistent with " + page(*ROCM_SPECS, "\"Radeon PRO W7900\": VRAM (GiB) \"48\", Compute Units \"96\": 96 CUs x 512 FP16 FLOP/clk/CU (RDNA3, twice the dual-issue FP32 rate) gives 122.6 at a 2.495 GHz boost clock (a clock neither page states)"))

NBC_M3MAX = ("Notebookcheck, Apple M3 Max 40-Core GPU vs M1 Pro 14-Core GPU vs M3 Max 30-Core GPU (GPU comparison)",
             "https://www.notebookcheck.net/M3-Max-40-Core-GPU-vs-M1-Pro-14-Core-GPU-vs-M3-Max-30-Core-GPU_11636_10965_12034.247598.0.html")
apple("apple-m3-max-30c", "mem", 96, *NBC_M3MAX, "\"The Apple M3 Max 30-Core GPU ... offers 30 of the 40 cores\", \"The graphics card can access up to 96 GB LPDDR5-6400\" (the 40-core part: \"up to 128 GB\")")

SYS_A2 = ("sysrqmts.com, NVIDIA A10 PCIe vs NVIDIA A2 (database copy)", "https://sysrqmts.com/vi/gpus/compare/nvidia-a10-pcie-vs-nvidia-a2")
read("a2", "bw", 200, "derived: 12.5 Gbps GDDR6 x 128-bit = 200 GB/s (NVIDIA's datasheet figure; the page's 200.1 is its 1563 MHz memory clock rounded up) ("
     + page(*SYS_A2, "A2 column: \"xung nhịp bộ nhớ\" \"1563 MHz 12.5 Gbps effective\", \"Bộ nhớ Bus\" \"128 bit\", \"Băng thông\" \"200.1 GB/s\"") + ")")

# --- fifth pass (issue #30): cards llama.cpp users benchmark that the catalog lacked ---------------
# Polaris, Vega, RDNA1, Maxwell and other consumer cards, and laptop parts, each figure read on the
# page named (a database copy or a review only where no vendor page was found, and labelled). Where
# one printed name covers two memory sizes (RX 580 4 GB and 8 GB) both entries carry it, so the
# name is ambiguous until the size is given, as for the RTX 3060. Laptop entries never answer to
# the desktop name (their names keep "Laptop"/"M"), and their figures are the vendor's maximum
# configuration: an OEM may fit slower memory or set a lower power limit, so they are upper bounds.
def rd(t, quote):
    return page(*t, quote)

def cut(s):
    return s[:-len(" [read]")]

G3D_590 = ("Guru3D, Radeon RX 590 (XFX Fatboy) review, architecture and specifications (Polaris table)",
           "https://www.guru3d.com/articles-pages/xfx-radeon-rx-590-fatboy-review,5.html")
HH_580 = ("HotHardware's RX 580 and RX 570 launch report as posted on Slashdot",
          "https://it.slashdot.org/?fhfilter=graphics&page=46&view=search")
TPU_590 = ("TechPowerUp, XFX Radeon RX 590 Fatboy review (review)", "https://www.techpowerup.com/review/xfx-radeon-rx-590-fatboy/single-page.html")
TR_PRO500 = ("The Tech Report, AMD spills the beans on Radeon Pro chips inside the new Macs",
             "https://techreport.com/news/32049/amd-spills-the-beans-on-radeon-pro-chips-inside-the-new-macs")
HWUP_IMAC = ("Hardware Upgrade, i nuovi iMac 27'' con la nuova Radeon Pro serie 500",
             "https://www.hwupgrade.it/news/apple/apple-i-nuovi-imac-27-raggiungono-velocita-superiori-dell-80-con-la-nuova-radeon-pro-serie-500_69511.html")
POLARIS = "Polaris (GCN 4): no matrix units and no fast FP16, so the FP32 rate is the prefill proxy."
_g3d_mem = "\"Memory sits on a 256-bit wide bus\", \"Polaris runs its memory reference at 7000 MHz for the 4GB models and 8000 MHz for the 8 GB model\""

def polaris(id, name, al, mem, mem_q, bw, bw_src, sp, mhz, fp32_pg, note=POLARIS):
    gpu(id, name, "AMD", al, mem, mem_q, bw, bw_src, fp32=r1(sp * mhz * 2 / 1e6),
        fp32_src=f"derived: {sp} stream processors x boost {mhz} MHz x 2 FLOP/clk ({fp32_pg})", note=note)

_g3d_sp = cut(rd(G3D_590, "table rows \"Shader procs\" \"2,304 | 2,304 | 2,304 | 2,048 | 2,048\" and \"GPU Clock Max\" \"1,545 MHz | 1,340 MHz | 1,267 MHz | 1,244 MHz | 1,206 MHz\" (RX 590, 580, 480, 570, 470)"))
polaris("rx-590", "Radeon RX 590 8GB", ["RX 590", "590", "RX 590 Series", "Radeon RX 590 Series"], 8,
        rd(TPU_590, "\"the RX 590 only comes with 8 GB of video memory (no 4 GB variant)\""),
        256, rd(TPU_590, "\"8 Gbps GDDR5 over a 256-bit wide memory interface, which yields 256 GB/s of bandwidth\""), 2304, 1545, _g3d_sp)
for gb, bw, gbps in [(8, 256, 8), (4, 224, 7)]:
    mem_q = rd(HH_580, "\"The Radeon RX 580 features ... 8GB of GDDR5 over a 256-bit interface\"") if gb == 8 else \
        rd(G3D_590, "RX 580 \"Graphics memory\" \"4 GB / 8 GB GDDR5\"")
    bw_q = rd(HH_580, "RX 580 \"up to 256GB/s of peak memory bandwidth\"") if gb == 8 else \
        "derived: 7 Gbps x 256-bit = 224 GB/s (" + rd(G3D_590, _g3d_mem + ', table row "Memory Bandwidth" "256 GB/s (8 GB) | 224 GB/s (4 GB"') + ")"
    polaris(f"rx-580-{gb}gb", f"Radeon RX 580 {gb}GB", ["RX 580", "580", "RX580", "RX 580 Series", "Radeon RX 580 Series", f"RX 580 {gb}GB"],
            gb, mem_q, bw, bw_q, 2304, 1340, cut(rd(HH_580, "RX 580 \"2,304 shader processors and boost / base GPU clocks of 1340MHz and 1257MHz\", \"6.17 TFLOPs\"")) + " [read]",
            note=POLARIS + f" RADV prints \"AMD Radeon RX 580 Series\" for both memory sizes: name the size (`RX 580 {gb}GB`); the {'4 GB card runs 7 Gbps (224 GB/s)' if gb == 8 else '8 GB card runs 8 Gbps (256 GB/s)'}.")
for gb in (4, 8):
    mem_q = rd(HH_580, "RX 570 \"with 4GB of GDDR5 memory also connected over a 256-bit interface\"") if gb == 4 else \
        rd(G3D_590, "RX 570 \"Graphics memory\" \"4 GB / 8 GB GDDR5\", \"Memory Clock\" \"7.0 Gbps\"")
    bw_q = rd(HH_580, "RX 570 \"At reference clocks ... 5.1TFLOPs with 224GB/s of memory bandwidth\"") if gb == 4 else \
        "derived: 7 Gbps x 256-bit = 224 GB/s (" + rd(G3D_590, 'RX 570 "Memory Clock" "7.0 Gbps"; ' + _g3d_mem) + ")"
    polaris(f"rx-570-{gb}gb", f"Radeon RX 570 {gb}GB", ["RX 570", "570", "RX570", "RX 570 Series", "Radeon RX 570 Series", f"RX 570 {gb}GB"],
            gb, mem_q, 224, bw_q, 2048, 1244, cut(rd(HH_580, "RX 570 \"32 active CUs and 2048 shader processors. Boost and base reference clocks are 1244MHz and 1168MHz\"")) + " [read]",
            note=POLARIS + " Both memory sizes print one name: name the size (`RX 570 8GB`); both run 7 Gbps.")
for gb, bw, gbps in [(8, 256, 8), (4, 224, 7)]:
    polaris(f"rx-480-{gb}gb", f"Radeon RX 480 {gb}GB", ["RX 480", "480", "RX480", "RX 480 Series", "Radeon RX 480 Series", f"RX 480 {gb}GB"],
            gb, rd(G3D_590, "RX 480 \"Graphics memory\" \"4 GB / 8 GB GDDR5\", \"Memory Clock\" \"7.0 / 8.0 Gbps\""),
            bw, f"derived: {gbps} Gbps x 256-bit = {bw} GB/s ({rd(G3D_590, _g3d_mem)})", 2304, 1267, _g3d_sp,
            note=POLARIS + f" Both memory sizes print one name: name the size (`RX 480 {gb}GB`).")
polaris("rx-470-4gb", "Radeon RX 470 4GB", ["RX 470", "470", "RX470", "RX 470 Series", "Radeon RX 470 Series", "RX 470 4GB"], 4,
        rd(G3D_590, "RX 470 \"Graphics memory\" \"4 GB / 8 GB GDDR5\", \"Memory Clock\" \"6.6 Gbps\" (AMD's reference card is the 4 GB one)"),
        211.2, "derived: 6.6 Gbps x 256-bit = 211.2 GB/s (" + rd(G3D_590, 'RX 470 "Memory Clock" "6.6 Gbps", "Memory sits on a 256-bit wide bus"') + ")",
        2048, 1206, _g3d_sp,
        note=POLARIS + " AMD's reference RX 470 (4 GB, 6.6 Gbps). 8 GB partner cards, often with 7 Gbps memory (224 GB/s), print the same name and are not catalogued apart: give a `--catalog` entry.")
for (i, n, al, gb, mem_pg, sp, tf, tf_pg) in [
    ("radeon-pro-580", "Radeon Pro 580 (iMac)", ["Radeon Pro 580", "Pro 580"], 8, rd(HWUP_IMAC, "\"la Radeon Pro 580 con 8GB\""),
     None, None, None),
    ("radeon-pro-570", "Radeon Pro 570 (iMac)", ["Radeon Pro 570", "Pro 570"], 4, rd(HWUP_IMAC, "\"le schede grafiche Radeon Pro 570 da 4GB\""),
     1792, 3.6, rd(TR_PRO500, "\"The Radeon Pro 570 has been knocked down to 1792 SPs (in 28 CUs) offering up to 3.6 TFLOPs\"")),
]:
    gpu(i, n, "AMD", al, gb, mem_pg, 217.6,
        "derived: 6.8 GT/s x 256-bit = 217.6 GB/s (" + rd(TR_PRO500, 'Radeon Pro 570, 575 and 580: "Memory bandwidth is set at 217 GB/s for the whole trio, a measure that works out to 6.8 GT/s GDDR5 on a 256-bit bus"') + ")",
        fp32=tf, fp32_src=tf_pg, note=POLARIS + " Apple's iMac (2017) part, a lower-clocked Polaris 20.")

# Vega
CPT_V56 = ("cputronic.com, AMD Radeon RX Vega 56 (database copy)", "https://cputronic.com/en/gpu/amd-radeon-rx-vega-56")
TPU_V56 = ("TechPowerUp, AMD Radeon RX Vega 56 8 GB review, architecture page (review)", "https://techpowerup.com/review/amd-radeon-rx-vega-56/2.html")
CPT_V64 = ("cputronic.com, AMD Radeon RX Vega 64 (database copy)", "https://cputronic.com/fr/gpu/amd-radeon-rx-vega-64")
G3D_VII = ("Guru3D, AMD Radeon VII 16 GB review, architecture and specifications (review)", "https://guru3d.com/review/amd-radeon-vii-16-gb-review/page-5")
NM_VII = ("newsmir.info, full specifications of the AMD Radeon VII (CES 2019 launch report)", "https://newsmir.info/1550390")
CD_PROVII = ("Coelacanth's Dream, AMD announces the Radeon Pro VII (launch report citing AMD's release)", "https://www.coelacanth-dream.com/posts/2020/05/13/amd-radeon-pro-vii/")
HZ_VEGAII = ("HardZone, AMD Radeon Pro Vega II y Pro Vega II Duo (launch report)", "https://hardzone.es/2019/06/04/amd-radeon-pro-vega-ii-pro-vega-ii-duo/")
XCC_VEGAII = ("xcc.com, AMD Radeon Pro Vega II and Pro Vega II Duo (launch report)", "https://xcc.com/news/detail/2034080")
NBC_MI25 = ("Notebookcheck, AMD: Radeon-Instinct-Grafikkarte mit Vega-Chip angekündigt", "https://notebookcheck.com/AMD-Radeon-Instinct-Grafikkarte-mit-Vega-Chip-angekuendigt.229898.0.html")
VEGA10 = "Vega 10 (GCN 5): no matrix units; packed FP16 runs at twice the FP32 rate on the vector units."
_vega_rx = "ROCm and RADV may print both Vega 10 cards as \"Radeon RX Vega\", which names both: give the number (`RX Vega 56`)."
gpu("rx-vega-56", "Radeon RX Vega 56 8GB", "AMD", ["RX Vega 56", "Vega 56", "Radeon RX Vega 56", "RX Vega", "Radeon RX Vega"], 8,
    rd(CPT_V56, "\"The 8GB of HBM2 memory ensures smooth and consistent performance\""),
    409.6, "derived: 800 MHz HBM2 (1.6 Gbps) x 2048-bit = 409.6 GB/s (" + cut(rd(CPT_V56, "\"The memory clock of 800MHz\""))
    + "; " + rd(TPU_V56, "Vega 10 \"wired to two 32 Gbit HBM2 memory stacks over a 2048-bit wide memory interface\"") + ")",
    fp32=r1(3584 * 1471 * 2 / 1e6), fp32_src="derived: 3584 stream processors x boost 1471 MHz x 2 FLOP/clk (" + rd(CPT_V56, "\"a boost clock of 1471MHz\", \"With 3584 shading units\", \"Its theoretical performance of 10.54 TFLOPS\"") + ")",
    note=VEGA10 + " " + _vega_rx)
gpu("rx-vega-64", "Radeon RX Vega 64 8GB", "AMD", ["RX Vega 64", "Vega 64", "Radeon RX Vega 64", "RX Vega", "Radeon RX Vega"], 8,
    rd(CPT_V64, "\"Les 8 Go de mémoire HBM2 et une fréquence de mémoire de 945MHz\""),
    483.8, "derived: 945 MHz HBM2 (1.89 Gbps) x 2048-bit = 483.8 GB/s (" + cut(rd(CPT_V64, "\"une fréquence de mémoire de 945MHz\""))
    + "; " + rd(TPU_V56, "Vega 10 \"wired to two 32 Gbit HBM2 memory stacks over a 2048-bit wide memory interface\", \"at just 484 GB/s\"") + ")",
    fp32=12.7, fp32_src=rd(CPT_V64, "\"4096 unités de shading\", \"une fréquence de boost de 1546MHz\", \"une performance théorique de 12,66 TFLOPS\""),
    note=VEGA10 + " " + _vega_rx)
gpu("radeon-vii", "Radeon VII 16GB", "AMD", ["Radeon VII", "AMD Radeon VII"], 16,
    rd(G3D_VII, "\"the Radeon VII will have just one card, fitted with 16 GB of HBM2 graphics memory, four stacks thus with a 4096-bit memory bus\""),
    1024, "derived: 2 Gbps x 4096-bit = 1024 GB/s (" + cut(rd(NM_VII, "\"четыре стека памяти HBM2 общим объемом 16 ГБ. Каждый из них обладает пропускной способностью в 2 Гбит/с на контакт, что вместе с 4096-битной шиной обеспечивает общую пропускную способность памяти в 1 ТБ/с\""))
    + "; " + rd(G3D_VII, "\"The card as such will offer 1 TB/s of memory bandwidth\"") + ")",
    fp32=13.8, fp32_src=rd(G3D_VII, "\"Radeon VII (60 CU Peak 1800 MHz)\": \"Peak FP 32\" \"13.8 TFLOPS\", \"Peak FP 16\" \"27.7 TFLOPS\""),
    note=VEGA + " Not the Radeon Pro VII (a separate entry).")
gpu("radeon-pro-vii", "Radeon Pro VII 16GB", "AMD", ["Radeon Pro VII", "Pro VII", "AMD Radeon Pro VII"], 16,
    rd(CD_PROVII, "\"総CU数 60基、GPUメモリ HBM2 16GB (4096-bit)という点はコンシューマ向けの Radeon VII と同じ\""),
    1024, "derived: the Radeon VII's 2 Gbps x 4096-bit = 1024 GB/s (" + cut(rd(CD_PROVII, "\"HBM2 が ECCに対応したが、容量、帯域は変わらない\" (capacity and bandwidth unchanged from the Radeon VII)"))
    + "; " + rd(NM_VII, "Radeon VII: \"2 Гбит/с на контакт\", \"4096-битной шиной\", \"1 ТБ/с\"") + ")",
    fp32=r1(60 * 64 * 2 * 1705 / 1e6), fp32_src="derived: 60 CUs x 64 lanes x 2 FLOP x peak 1705 MHz (" + rd(CD_PROVII, "\"総CU数 60基\", \"動作クロックは Radeon VII の最大 1800MHzから 1705MHzに抑えられており\"") + ")",
    note=VEGA + " Full-rate FP64 (half the FP32 rate) unlike the Radeon VII; not the Radeon VII (a separate entry).")
gpu("radeon-pro-vega-ii", "Radeon Pro Vega II 32GB (one GPU; Vega II Duo: two)", "AMD",
    ["Radeon Pro Vega II", "Pro Vega II", "Radeon Pro Vega II Duo", "Pro Vega II Duo", "AMD Radeon Pro Vega II Duo"], 32,
    rd(HZ_VEGAII, "\"4.096 shaders por chip que irán unidos a 32 GB de HBM2 (1 GHz)\"") + "; the Duo: " + rd(XCC_VEGAII, "\"Radeon Pro Vega II Duo ... 配备了64GB的HBM2内存\" (two GPUs of 32 GB)"),
    1024, "derived: 1 GHz HBM2 (2 Gbps) x 4096-bit = 1024 GB/s (" + rd(HZ_VEGAII, "\"32 GB de HBM2 (1 GHz) y donde ésta logrará un ancho de banda de 1 TB/s gracias a su bus de 4.096 bits\"") + ")",
    fp32=14.2, fp32_src=rd(XCC_VEGAII, "\"Radeon Pro Vega II带有64个计算单元 ... 1.7 GHz峰值引擎时钟,可提供高达14.2 TFLOP的FP32性能\"") + "; also " + rd(HZ_VEGAII, "\"14 TFLOPS en FP32 y 28 en FP16\""),
    note=VEGA + " Mac Pro (2019) MPX module. A Vega II Duo is two of these GPUs on one board, each listed by llama.cpp as its own device with the same name; the entry is one GPU.")
gpu("mi25", "Radeon Instinct MI25 16GB", "AMD", ["MI25", "Instinct MI25", "Radeon Instinct MI25"], 16,
    rd(NBC_MI25, "MI25: \"Als Speicher kommt ein HBM2-Chip mit 16 GB Kapazität zum Einsatz\""),
    484, rd(NBC_MI25, "MI25: \"welcher Datentransferraten von stolzen 484 Gbyte/s liefern soll\""),
    fp32=12.3, fp32_src=rd(NBC_MI25, "MI25: \"4096 Shader-Einheiten, was in einer Rechenleistung von 12,3 Teraflops (FP32) bzw. 24,6 Teraflops (FP16) resultiert\""),
    note=VEGA10)

# RDNA1
HWLX_5600 = ("Hardwareluxx, AMD macht die Radeon RX 5600 XT offiziell (Radeon RX 5000 comparison table)",
             "https://www.hardwareluxx.de/index.php/news/hardware/grafikkarten/51921-amd-macht-die-radeon-rx-5600-xt-offiziell.html")
HART_5600 = ("Hartware, Radeon RX 5600 XT ab 299 Euro erhältlich", "https://www.hartware.de/2020/01/22/radeon-rx-5600-xt-ab-299-euro-erhaeltlich/")
TPU_5500 = ("TechPowerUp, Gigabyte Radeon RX 5500 XT Gaming OC 8 GB review (review)", "https://techpowerup.com/review/gigabyte-radeon-rx-5500-xt-gaming-oc-8-gb")
CB_5500M = ("ComputerBase, AMD Radeon Pro 5500M: Navi 14 als Vollausbau im neuen MacBook Pro 16 Zoll", "https://computerbase.de/2019-11/amd-radeon-pro-5500m-5300m-macbook")
MG_5500M = ("Macgadget, AMD nennt Details zu Grafikkarten des neuen 16-Zoll-MacBook-Pro (citing AMD)", "https://www.macgadget.de/index.php/News/2019/11/14/AMD-nennt-Details-zu-Grafikkarten-des-neuen-16-Zoll-MacBook-Pro")
GT_5500M = ("Geektopia, AMD anuncia las Radeon Pro 5300M y Radeon Pro 5500M", "https://www.geektopia.es/es/technology/2019/11/13/noticias/amd-anuncia-las-radeon-pro-5300m-y-radeon-pro-5500m.html")
RDNA1 = "RDNA1: no matrix units; packed FP16 runs at twice the FP32 rate on the shader cores, so the FP32 rate is the prefill proxy."
_hwlx = "table: RX 5700 XT | RX 5700 | RX 5600 XT | RX 5500 XT: \"GPU-Takt (Boost) 1.905 MHz 1.725 MHz 1.560 MHz 1.845 MHz\", \"Speichergröße 8 GB 8 GB 6 GB 4 / 8 GB\", \"Speicherinterface 256 Bit 256 Bit 192 Bit 128 Bit\", \"Speicherbandbreite 448 GB/s 448 GB/s 288 GB/s 224 GB/s\", \"Shadereinheiten 2.560 2.304 2.304 1.408\""
for (i, n, al, mem, bw, sp, mhz) in [
    ("rx-5700-xt", "Radeon RX 5700 XT 8GB", ["RX 5700 XT", "5700 XT", "RX 5700XT", "5700XT"], 8, 448, 2560, 1905),
    ("rx-5700", "Radeon RX 5700 8GB", ["RX 5700", "5700"], 8, 448, 2304, 1725),
]:
    gpu(i, n, "AMD", al, mem, rd(HWLX_5600, _hwlx), bw, rd(HWLX_5600, _hwlx), fp32=r1(sp * mhz * 2 / 1e6),
        fp32_src=f"derived: {sp} stream processors x boost {mhz} MHz x 2 FLOP/clk ({rd(HWLX_5600, _hwlx)})",
        note=RDNA1 + (" Not the RX 5700 XT (a separate entry)." if i == "rx-5700" else ""))
gpu("rx-5600-xt", "Radeon RX 5600 XT 6GB", "AMD", ["RX 5600 XT", "5600 XT", "RX 5600XT"], 6, rd(HWLX_5600, _hwlx),
    336, "derived: 14 Gbps x 192-bit = 336 GB/s, the boards' faster memory (" + cut(rd(HART_5600, "\"Auch der Speichertakt ist mit 12 statt 14 Gbit/s offiziell etwas niedriger. Allerdings haben die Board-Partner mehr Freiheiten ... viele, wenn nicht sogar die meisten, bieten ihre eigenen Radeon RX 5600 XT mit 14 Gbit/s RAM-Takt an, so dass die Speicherbandbreite von 288 auf 336 GByte/s steigt\""))
    + "; AMD's launch figure was 288 GB/s at 12 Gbps: " + rd(HWLX_5600, "\"Speicherbandbreite ... 288 GB/s\" (RX 5600 XT)") + ")",
    fp32=r1(2304 * 1560 * 2 / 1e6), fp32_src=f"derived: 2304 stream processors x boost 1560 MHz x 2 FLOP/clk ({rd(HWLX_5600, _hwlx)})",
    note=RDNA1 + " AMD launched it with 12 Gbps memory (288 GB/s); most boards ship 14 Gbps (336 GB/s), which the ceiling takes as the upper bound.")
for gb in (8, 4):
    gpu(f"rx-5500-xt-{gb}gb", f"Radeon RX 5500 XT {gb}GB", "AMD", ["RX 5500 XT", "5500 XT", "RX 5500XT", f"RX 5500 XT {gb}GB"], gb,
        rd(TPU_5500, "\"The Radeon RX 5500 XT comes in two variants based on memory size, 4 GB and 8 GB. Besides memory, the two choices have an identical GPU core-configuration and clock speeds\""),
        224, rd(TPU_5500, "\"a 128-bit wide GDDR6 memory bus\", \"The memory ticks at 14 Gbps, yielding 224 GB/s memory bandwidth\""),
        fp32=r1(1408 * 1845 * 2 / 1e6), fp32_src=f"derived: 1408 stream processors x boost 1845 MHz x 2 FLOP/clk ({rd(HWLX_5600, _hwlx)})",
        note=RDNA1 + f" Both memory sizes print one name: name the size (`RX 5500 XT {gb}GB`).")
for gb in (8, 4):
    gpu(f"radeon-pro-5500m-{gb}gb", f"Radeon Pro 5500M {gb}GB", "AMD", ["Radeon Pro 5500M", "Pro 5500M", f"Radeon Pro 5500M {gb}GB"], gb,
        rd(CB_5500M, "\"die Radeon Pro 5500M, die bei Apple wahlweise mit 4 GB oder 8 GB GDDR6-Speicher zum Einsatz kommt\", \"Speicherinterface\" \"128 Bit\""),
        192, rd(MG_5500M, "\"Der GDDR6-Arbeitsspeicher bietet laut AMD eine doppelt so hohe Speicherbandbreite als GDDR5 (bis zu 192 GB pro Sekunde)\"")
        + "; " + rd(GT_5500M, "\"GDDR6 a 12 GHz en lugar de a 14 GHz, lo que reduce el ancho de banda de memoria a los 192 GB/s, ya que mantiene el bus de 128 bits\""),
        fp32=4.0, fp32_src=rd(CB_5500M, "Radeon Pro 5500M \"24\" CUs, \"1.536\" stream processors, \"TFLOPs (FP32)\" \"bis 4,0\""),
        note=RDNA1 + f" MacBook Pro 16-inch (2019) laptop part; both memory sizes print one name: name the size (`Radeon Pro 5500M {gb}GB`).")

# NVIDIA desktop
PCG_980 = ("PC Gamer, Nvidia GTX 980 tested (specification table)", "https://www.pcgamer.com/uk/nvidia-gtx-980-tested-sli-4k-and-single-gpu-benchmarks-and-impressions/")
CPT_970 = ("cputronic.com, NVIDIA GeForce GTX 970 vs NVIDIA TITAN X Pascal (database copy)", "https://cputronic.com/gpu/compare/nvidia-geforce-gtx-970-vs-nvidia-titan-x-pascal")
G3D_980TI = ("Guru3D, NVIDIA GeForce GTX 980 Ti review, Maxwell GPU architecture (review)", "https://guru3d.com/review/nvidia-geforce-gtx-980-ti-review/page-5")
JDY_980TI = ("jindouyun.cn, GTX 980 Ti architecture notes", "https://jindouyun.cn/document/industry/details/222169")
GG_980TI = ("GameGPU, GeForce GTX 980 Ti", "https://de.gamegpu.com/geforce-gtx-9xx-series/geforce-gtx-980-ti")
CC_TITANX = ("Cloudy Circuitry (copy of a review), NVIDIA GeForce GTX Titan X review", "https://cloudycircuitry.blogspot.com/2015/04/nvidia-geforce-gtx-titan-x-review-and.html")
TC_TITANX = ("ThinkComputers, NVIDIA GeForce GTX Titan X Full Specifications Revealed", "https://thinkcomputers.org/nvidia-geforce-gtx-titan-x-full-specifications-revealed/")
AUT_1050 = ("Autonomy blog, GTX 1050 specs", "https://autonomy.githuka.com/blog/specs/")
CPR_1060 = ("Custom PC Review, Nvidia launches GeForce GTX 1060 3GB", "https://custompcreview.com/news/nvidia-launches-geforce-gtx-1060-3gb-priced-200")
TC_3050 = ("ThinkComputers, NVIDIA GeForce RTX 3050 6GB Officially Launched", "https://thinkcomputers.org/nvidia-geforce-rtx-3050-6gb-officially-launched/")
HWS_3050 = ("HWSetup, NVIDIA GeForce RTX 3050 6GB", "https://hwsetup.it/news/reader.php?objid=35282")
MAXWELL = "Maxwell: no tensor cores and no fast FP16; llama.cpp runs FP32 kernels, so the FP32 rate is the prefill proxy."
_pcg = "table: GTX 980 | GTX 970: \"CUDA cores\" \"2048 | 1664\", \"Boost clock\" \"1216 MHz | 1178 MHz\", \"Memory config\" \"4GB 256-bit GDDR5 | 4GB 256-bit GDDR5\", \"Memory speed\" \"7.0 Gbps | 7.0 Gbps\""
gf_maxwell = lambda cores, mhz, pg: dict(fp32=r1(cores * mhz * 2 / 1e6), fp32_src=f"derived: {cores} CUDA cores x boost {mhz} MHz x 2 FLOP/clk ({pg})")
gpu("gtx-970", "GeForce GTX 970", "NVIDIA", ["GTX 970", "970", "NVIDIA GeForce GTX 970"], 4, rd(PCG_980, _pcg),
    224.4, "derived: 7.01 Gbps (1753 MHz GDDR5) x 256-bit = 224.4 GB/s (" + cut(rd(CPT_970, "GTX 970 \"Memory Bus\" \"256bit\", \"Memory Clock\" \"1753MHz\", \"Bandwidth\" \"224.4 GB/s\"")) + "; " + rd(PCG_980, _pcg) + ")",
    **gf_maxwell(1664, 1178, rd(PCG_980, _pcg)),
    note=MAXWELL + " The last 0.5 GB of the 4 GB is reached over a slower path, so the full-bus figure is an upper bound.")
gpu("gtx-980", "GeForce GTX 980", "NVIDIA", ["GTX 980", "980", "NVIDIA GeForce GTX 980"], 4, rd(PCG_980, _pcg),
    224, f"derived: 7.0 Gbps x 256-bit = 224 GB/s ({rd(PCG_980, _pcg)})", **gf_maxwell(2048, 1216, rd(PCG_980, _pcg)), note=MAXWELL)
gpu("gtx-980-ti", "GeForce GTX 980 Ti", "NVIDIA", ["GTX 980 Ti", "980 Ti", "NVIDIA GeForce GTX 980 Ti"], 6,
    rd(JDY_980TI, "\"显存:6GB GDDR5\", \"位宽:384bit\""),
    336.5, "derived: 7.01 Gbps x 384-bit = 336.5 GB/s (" + rd(JDY_980TI, "\"等效显存频率:7010MHz\", \"位宽:384bit\"") + ")",
    **gf_maxwell(2816, 1075, cut(rd(G3D_980TI, "\"GeForce GTX 980 Ti has 2816 shader processors and 6 GB of GDDR5 graphics memory\"")) + "; "
                 + rd(GG_980TI, "\"der minimale Boost-Balken ist auf 1.075 MHz eingestellt\"")), note=MAXWELL)
gpu("gtx-titan-x-maxwell", "GeForce GTX TITAN X (Maxwell)", "NVIDIA", ["GTX TITAN X", "GeForce GTX TITAN X", "NVIDIA GeForce GTX TITAN X"], 12,
    rd(CC_TITANX, "\"Nvidia has also equipped the Titan X with 12GB of VRAM\""),
    336.6, "derived: 7.012 Gbps x 384-bit = 336.6 GB/s (" + cut(rd(TC_TITANX, "\"a 384-bit wide GDDR5 memory interface that holds 12 GB\", \"The memory has an effective clock of 7012 MHz, which gives you a memory bandwidth of 336 GB/s\"")) + "; "
    + rd(CC_TITANX, "\"the memory is clocked at 7GHz, giving the Titan X a total memory bandwidth of 336GB/sec\"") + ")",
    **gf_maxwell(3072, 1075, rd(CC_TITANX, "\"This takes the number of stream processors to 3,072\", \"the rated boost clock at 1,075MHz\"")),
    note=MAXWELL + " The Maxwell GTX TITAN X only: a bare \"TITAN X\" is NVIDIA's name for the Pascal TITAN X (its own entry).")
gpu("gtx-1050", "GeForce GTX 1050 2GB", "NVIDIA", ["GTX 1050", "1050", "NVIDIA GeForce GTX 1050", "GTX 1050 2GB"], 2,
    rd(AUT_1050, "\"Standard Memory: 2GB GDDR5\", \"Memory Interface Width: 128 bit\""),
    112, rd(AUT_1050, "\"Memory Speed: 7GB/s\", \"Memory Bandwidth (GB/s): 112\""),
    fp32=r1(640 * 1455 * 2 / 1e6), fp32_src="derived: 640 CUDA cores x boost 1455 MHz x 2 FLOP/clk (" + rd(AUT_1050, "\"CUDA Cores: 640\", \"Boost Clock: 1455 Mhz\"") + ")",
    note=PASCAL_NOTE + " The 3 GB GTX 1050 (96-bit) is not catalogued: `GTX 1050 3GB` is unknown.")
gpu("gtx-1060-3gb", "GeForce GTX 1060 3GB", "NVIDIA", ["GTX 1060 3GB", "GTX 1060", "NVIDIA GeForce GTX 1060"], 3,
    rd(CPR_1060, "\"the new GeForce GTX 1060 3GB not only has just 3GB GDDR5 memory\""),
    192, "derived: 8 Gbps x 192-bit = 192 GB/s (" + rd(CPR_1060, "GTX 1060 3GB \"Memory Interface\" \"192-bit\", \"Effective Memory Clock\" \"8 Gbps\"") + ")",
    fp32=r1(1152 * 1708 * 2 / 1e6), fp32_src="derived: 1152 CUDA cores x boost 1708 MHz x 2 FLOP/clk (" + rd(CPR_1060, "\"1152 CUDA cores\", \"1506/1708MHz core/boost\"") + ")",
    note=PASCAL_NOTE + " Not the 6 GB card (1280 cores): both print \"GeForce GTX 1060\", so name the size (`GTX 1060 3GB`).")
gpu("rtx-3050-6gb", "GeForce RTX 3050 6GB", "NVIDIA", ["RTX 3050", "3050", "RTX 3050 6GB", "NVIDIA GeForce RTX 3050"], 6,
    rd(TC_3050, "\"moving from 8GB to 6GB\""),
    168, rd(TC_3050, "\"The memory is the same 14 Gbps speed, but the card now features a narrower memory bus of only 96-bit. This gives you a total of 168 GB/s of memory bandwidth\""),
    bf16=r1(18 * 1470 * 512 / 1e6), bf16_src=TC512.format(sm=18, mhz=1470, wp=GA_WP, pages=cut(rd(HWS_3050, "\"la GPU GA107 della GeForce RTX 3050 6GB integra 2304 core CUDA\" (128 per SM, so 18 SMs), \"frequenza di clock massima con Boost (1.47GHz vs 1.78GHz)\""))
        + "; ThinkComputers gives 16 SMs (2,048 cores): the higher count is kept, as the ceiling is an upper bound [read]"),
    note="Not the 8 GB RTX 3050 (20 SMs, 128-bit, 224 GB/s): both print \"GeForce RTX 3050\", so name the size (`RTX 3050 6GB`).")

NNGR_TITANV = ("newsnowgr.com, TITAN V: Volta with explosive performance (launch report)", "https://newsnowgr.com/article/1072420/TITAN-V-Volta-me-ekriktikes-epidoseis.html")
GT_TITANV = ("Geektopia, Nvidia presenta la Titan V basada en el chip GV100 (launch report)",
             "https://geektopia.es/es/technology/2017/12/08/articulos/nvidia-presenta-la-titan-v-basada-en-el-chip-gv100-y-de-3100-euros.html")
gpu("titan-v", "TITAN V 12GB", "NVIDIA", ["TITAN V", "Titan V", "NVIDIA TITAN V"], 12,
    rd(NNGR_TITANV, "\"Η κάρτα γραφικών διαθέτει 12GB HBM2 με το εύρος το memory interface να είναι 3072-bit\""),
    652.8, "derived: 1.7 Gbps (850 MHz HBM2) x 3072-bit = 652.8 GB/s (" + cut(rd(NNGR_TITANV, "\"τα chips ΗΒΜ2 να χρονίζονται στα 850MHz, χαρακτηριστικά που μεταφράζονται σε memory bandwidth μεγέθους 652,8GB/s (1,70Gbps stacks)\""))
    + "; " + rd(GT_TITANV, "\"Bus de memoria\" \"3072 bits\", \"AB memoria\" \"653 GB/s\"") + ")",
    bf16=110, bf16_src=rd(GT_TITANV, "\"mantiene los 640 núcleos tensoriales que le dan una potencia de cómputo adicional de 110 TFLOPS en tareas de aprendizaje profundo\" (FP16 tensor, dense; Volta has no BF16)"),
    note="Volta GV100 with tensor cores (FP16 only; no BF16). Not the TITAN V CEO Edition (32 GB, not catalogued).")

# Laptop parts
NV_L40 = ("NVIDIA, GeForce RTX 40 Series laptops, compare specs (German page)", "https://nvidia.com/de-de/geforce/gaming-laptops/compare")
NBC_L40 = ("Notebookcheck, NVIDIA GeForce RTX 4050 Laptop GPU (Polish page with the RTX 40 Laptop family list)", "https://www.notebookcheck.pl/NVIDIA-NVIDIA-GeForce-RTX-4050-Laptop-GPU.771530.0.html")
TH_L30 = ("Tom's Hardware, Look Closely Before You Buy a GeForce RTX 3000 Laptop (NVIDIA's configuration table via ComputerBase)", "https://www.tomshardware.com/news/look-closely-before-you-buy-a-geforce-rtx-3000-laptop")
TWK_L30 = ("Tweakers, Nvidia RTX 30-gpu's voor laptops hebben 28 verschillende configuraties", "https://tweakers.net/nieuws/177370/nvidia-rtx-30-gpus-voor-laptops-hebben-28-verschillende-configuraties.html")
TWK_3070L = ("Tweakers, Foto toont vermeende GeForce RTX 3070-gpu voor laptops", "https://tweakers.net/nieuws/172900/foto-toont-vermeende-geforce-rtx-3070-gpu-voor-laptops.html")
WCCF_L30 = ("Wccftech, NVIDIA unveils GeForce RTX 30 Mobility GPUs (launch report)", "https://wccftech.com/nvidia-unveils-geforce-rtx-30-mobility-gpus-geforce-rtx-3080-16-gb-rtx-3070-8-gb-rtx-3060-6-gb/")
ADB_3060L = ("cpu-gpu.alldbin.com, GeForce RTX 3060 Mobile and GeForce RTX 4070 Mobile comparison (database copy)",
             "https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-3060-mobile-and-GeForce-RTX-4070-mobile-comparison.html")
HMC_3080L = ("hmc-tech.com, NVIDIA GeForce RTX 4050 Laptop 30W vs NVIDIA GeForce RTX 3080 Laptop 90W (database copy)",
             "https://hmc-tech.com/gpu/nvidia-geforce-rtx-4050-laptop-30w-vs-nvidia-geforce-rtx-3080-laptop-90w")
FPSB_6800M = ("fpsbench.com, AMD Radeon 660M vs AMD Radeon RX 6800M (database copy)", "https://fpsbench.com/compare/gpu/amd-radeon-660m-vs-amd-radeon-rx-6800m")
FPSB_6600M = ("fpsbench.com, AMD Radeon RX 6600M vs Intel Iris Pro Graphics 6200 (database copy)", "https://fpsbench.com/compare/gpu/amd-radeon-rx-6600m-vs-intel-iris-pro-graphics-6200")
MTP_6000M = ("Meterpreter, AMD releases RX 6000M series graphics cards (Computex launch report)", "https://meterpreter.org/amd-releases-rx-6000m-series-graphics-cards")
LAPTOP = ("Laptop part: the OEM sets the power limit and may fit slower memory, so these figures (the fastest configuration) are an upper "
          "bound for a given laptop. Never the desktop card of the same number.")

def laptop_name(n):
    base = n.replace("GeForce ", "")
    num = base.replace("RTX ", "")
    return [base, base.replace(" GPU", ""), num.replace(" GPU", ""), base.replace("Laptop GPU", "Mobile"), "NVIDIA " + n]

for (n, mem, bus, gbps, cores, mhz) in [
    ("GeForce RTX 4080 Laptop GPU", 12, 192, 20, 7424, 2280),
    ("GeForce RTX 4070 Laptop GPU", 8, 128, 16, 4608, 2175),
    ("GeForce RTX 4060 Laptop GPU", 8, 128, 16, 3072, 2370),
    ("GeForce RTX 4050 Laptop GPU", 6, 96, 16, 2560, 2370),
]:
    num = n.split()[2]
    sm = cores // 128
    c_de, m_de = f"{cores:,}".replace(",", "."), f"{mhz:,}".replace(",", ".")
    _nv = rd(NV_L40, f'RTX {num} Laptop GPU: "NVIDIA CUDA®-Recheneinheiten" "{c_de}", "Boost-Taktung" up to "{m_de} MHz", '
             f'"Standard-Speicherkonfiguration" "{mem} GB GDDR6", "Breite der Speicherschnittstelle" "{bus} Bit"')
    bf16 = r1(sm * mhz * 512 / 1e6)
    gpu(f"rtx-{num}-laptop", n, "NVIDIA", laptop_name(n), mem, _nv,
        bus * gbps // 8, f"derived: {gbps} Gbps x {bus}-bit = {bus * gbps // 8} GB/s, the fastest memory fitted (" + cut(_nv) + "; "
        + rd(NBC_L40, f"\"NVIDIA GeForce RTX {num} Laptop GPU\" \"{bus} bit @ {gbps}000 MHz\" (NVIDIA's page gives no memory speed)") + ")",
        bf16=bf16, bf16_src=TC512.format(sm=sm, mhz=mhz, wp=AD_WP, pages=cut(_nv) + f" ({cores} cores at 128 per SM) at the highest power limit [read]"),
        fp8=r1(bf16 * 2), fp8_src=f"derived: twice the FP16/FP32-accumulate rate (FP8 with FP32 accumulate, {AD_WP})", note=LAPTOP)

_tw = cut(rd(TWK_L30, "\"In alle gevallen zijn er drie Max-Q-varianten; die hebben het laagste verbruik en zijn voorzien van 12GBit/s-geheugen, terwijl alle andere varianten sneller 14Gbit/s-geheugen hebben\""))
gpu("rtx-3060-laptop", "GeForce RTX 3060 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 3060 Laptop GPU"), 6,
    rd(ADB_3060L, "RTX 3060 Mobile \"Maximum RAM amount\" \"6 GB\", \"Memory bus width\" \"192 Bit\""),
    336, "derived: 14 Gbps x 192-bit = 336 GB/s (" + cut(rd(TH_L30, "RTX 3060 Laptop GPU rows: \"192-bit\", \"14 Gbps\" (Max-Q rows \"12 Gbps\")")) + "; "
    + rd(ADB_3060L, "\"Memory clock speed\" \"14000 MHz\", \"Memory bandwidth\" \"336.0 GB/s\"") + ")",
    bf16=r1(30 * 1702 * 512 / 1e6), bf16_src=TC512.format(sm=30, mhz=1702, wp=GA_WP, pages=cut(rd(ADB_3060L, "RTX 3060 Mobile \"Pipelines / CUDA cores\" \"3840\" (128 per SM, so 30 SMs), \"Boost clock speed\" \"1702 MHz\"")) + " [read]"),
    note=LAPTOP)
gpu("rtx-3070-laptop", "GeForce RTX 3070 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 3070 Laptop GPU"), 8,
    rd(WCCF_L30, "\"NVIDIA GeForce RTX 3070 8 GB Mobility GPU\", \"a total of 5120 cores, a base clock of 1290 MHz, and a boost of up to 1620 MHz\""),
    448, "derived: 14 Gbps x 256-bit = 448 GB/s (" + _tw + "; " + rd(TWK_3070L, "mobile RTX 3070 sample: \"het gebruik van acht chips wijst op een 256bit-geheugenbus en een capaciteit van 8GB vram\" (a bus width inferred from the board, not stated by NVIDIA)") + ")",
    bf16=r1(40 * 1620 * 512 / 1e6), bf16_src=TC512.format(sm=40, mhz=1620, wp=GA_WP, pages=cut(rd(WCCF_L30, "RTX 3070 Mobility \"40 SMs\", \"a boost of up to 1620 MHz\"")) + " [read]"),
    note=LAPTOP)
for gb in (16, 8):
    mem_q = rd(WCCF_L30, "RTX 3080 Mobility: \"The graphics card also features 16 GB VRAM which runs across a 256-bit wide bus interface\"") if gb == 16 else \
        rd(HMC_3080L, "\"NVIDIA GeForce RTX 3080 Laptop 90W\" \"6144 Shaders\" \"8GB GDDR6\"")
    gpu(f"rtx-3080-laptop-{gb}gb", f"GeForce RTX 3080 Laptop GPU {gb}GB", "NVIDIA", laptop_name("GeForce RTX 3080 Laptop GPU") + [f"RTX 3080 Laptop GPU {gb}GB"], gb, mem_q,
        448, "derived: 14 Gbps x 256-bit = 448 GB/s (" + _tw + "; " + rd(WCCF_L30, "\"16 GB VRAM which runs across a 256-bit wide bus interface\", \"In the case of 14 Gbps, the GPU will be able to offer a maximum bandwidth of 448 GB/s\"") + ")",
        bf16=r1(48 * 1710 * 512 / 1e6), bf16_src=TC512.format(sm=48, mhz=1710, wp=GA_WP, pages=cut(rd(WCCF_L30, "RTX 3080 Mobility \"48 SMs\", \"6144 cores\", \"a boost clock of 1710 MHz\"")) + " [read]"),
        note=LAPTOP + f" Both memory sizes print one name: name the size (`RTX 3080 Laptop GPU {gb}GB`).")
RDNA2M = "RDNA2 laptop part: no matrix units; FP16 runs packed on the shader cores, so the FP32 rate is the prefill proxy. " + LAPTOP.replace("Never the desktop card of the same number.", "Never the desktop RX card of the same number.")
gpu("rx-6800m", "Radeon RX 6800M 12GB", "AMD", ["RX 6800M", "6800M", "Radeon RX 6800M"], 12,
    rd(MTP_6000M, "\"The RX 6800M has 40 sets of CU units, 96MB of infinite cache, and 192bit/12GB of GDDR6 memory\""),
    384, rd(FPSB_6800M, "RX 6800M \"Memory Clock\" \"2000 MHz 16 Gbps effective\", \"Memory Bus\" \"192 bit\", \"Bandwidth\" \"384.0 GB/s\""),
    fp32=12.2, fp32_src=rd(FPSB_6800M, "RX 6800M \"Shading Units\" \"2,560\", \"Boost Clock\" \"2390 MHz\", \"FP32 (TFLOPS)\" \"12.24 TFLOPS\""), note=RDNA2M)
FPSB_6700M = ("fpsbench.com, AMD Radeon 860M vs AMD Radeon RX 6700M (database copy)", "https://fpsbench.com/compare/gpu/amd-radeon-860m-vs-amd-radeon-rx-6700m")
gpu("rx-6700m", "Radeon RX 6700M 10GB", "AMD", ["RX 6700M", "6700M", "Radeon RX 6700M"], 10,
    rd(MTP_6000M, "\"The RX 6700M also uses Navi 22 GPU, has 36 sets of CU ... the memory size is 160bit, equipped with 10GB of GDDR6 memory\""),
    320, rd(FPSB_6700M, "RX 6700M \"Memory Clock\" \"2000 MHz 16 Gbps effective\", \"Memory Bus\" \"160 bit\", \"Bandwidth\" \"320.0 GB/s\""),
    fp32=11.1, fp32_src=rd(FPSB_6700M, "RX 6700M \"Shading Units\" \"2,304\", \"Boost Clock\" \"2400 MHz\", \"FP32 (TFLOPS)\" \"11.06 TFLOPS\""), note=RDNA2M)
gpu("rx-6600m", "Radeon RX 6600M 8GB", "AMD", ["RX 6600M", "6600M", "Radeon RX 6600M"], 8,
    rd(MTP_6000M, "\"RX 6600M uses Navi 23 GPU, it has 28 CU units ... is equipped with 128bit/8GB GDDR6 video memory\""),
    224, rd(FPSB_6600M, "RX 6600M \"Memory Clock\" \"1750 MHz 14 Gbps effective\", \"Memory Bus\" \"128 bit\", \"Bandwidth\" \"224.0 GB/s\""),
    fp32=8.7, fp32_src=rd(FPSB_6600M, "RX 6600M \"Shading Units\" \"1,792\", \"Boost Clock\" \"2416 MHz\", \"FP32 (TFLOPS)\" \"8.659 TFLOPS\""), note=RDNA2M)
# --- scoreboard cards (sixth pass) ---------------------------------------------------------------
# Issue #30: cards seen in public llama.cpp device lines (fixtures/scoreboards/device_names.toml)
# and not yet catalogued. Every figure quotes the page it was read on ("[read]"); a database copy
# is labelled so. Helpers for this block only.
def card(id, name, vendor, aliases, mem, mem_src, bw, bw_src, note=None, **rates):
    """A row whose figures are all read here: `rates` maps bf16/fp8/fp4/fp32 to (value, source)."""
    kw = {}
    for k, (v, s) in rates.items():
        kw[k], kw[k + "_src"] = v, s
    gpu(id, name, vendor, aliases, mem, mem_src, bw, bw_src, note=note, **kw)

def unread(s):
    """A page() source without its trailing tag, to join several pages into one source."""
    return s[:-len(" [read]")]

def drop_alias(id, alias):
    """Takes a name off an earlier row when it names a card of its own."""
    next(r for r in rows if r["id"] == id)["aliases"].remove(alias)

# NVIDIA GeForce RTX 4090 D (China market): AD102 with 114 of the RTX 4090's 128 SMs, the same
# memory. Its printed name must never read as the RTX 4090, nor "RTX 4090" as the D.
SMN_4090D = ("SmartphoneMagazine.nl, NVIDIA presenterer nye GeForce RTX 4090 D-modell (launch report)",
             "https://smartphonemagazine.nl/nn/2024/07/11/nvidia-presenterer-nye-geforce-rtx-4090-d-modell")
HMC_4090D = ("hmc-tech.com, NVIDIA GeForce RTX 4090 D (database copy)", "https://hmc-tech.com/gpu/nvidia-geforce-rtx-4090-d")
card("rtx-4090-d", "GeForce RTX 4090 D", "NVIDIA", ["RTX 4090 D", "4090 D", "RTX 4090D", "4090D", "NVIDIA GeForce RTX 4090 D"],
     24, unread(page(*SMN_4090D, "\"Grafikkortet er utstyrt med 24 GB GDDR6X-minne (384-bit)\"")) + "; "
     + page(*HMC_4090D, "\"24GB GDDR6X\""),
     1008, "derived: 21 Gbps GDDR6X x 384-bit = 1008 GB/s (" + unread(page(*SMN_4090D, "\"24 GB GDDR6X-minne (384-bit) og har ein hastigheit på 21 Gbps\""))
     + "; " + page(*HMC_4090D, "\"Bus Width 384Bit\", \"Transfer Rate 21GT/s\", \"Bandwidth 1008GB/s\"") + ")",
     bf16=(r1(114 * 2520 * 512 / 1e6), TC512.format(sm=114, mhz=2520, wp=AD_WP, pages=page(*HMC_4090D,
           "\"Streaming Multiprocessors 114 SMs\", boost \"2520MHz\"; it lists the same \"147.09 TFLOPS Tensor (FP32 Accumulate)\" for FP16")
           + "; " + page(*SMN_4090D, "\"14 592 CUDA-kjerner og 456 Tensor-kjerner\" (128 CUDA cores per SM: 114 SMs)"))),
     fp8=(r1(2 * 114 * 2520 * 512 / 1e6), f"derived: twice the FP16/FP32-accumulate rate (FP8 with FP32 accumulate, {AD_WP}); "
          + page(*HMC_4090D, "FP8 \"294.18 TFLOPS Tensor (FP32 Accumulate)\"")),
     note="The China-market RTX 4090 D: AD102 with 114 SMs (the RTX 4090 has 128), the same 24 GB and 1,008 GB/s, so the "
          "same decode ceiling and about 11% less prefill. `RTX 4090` without the D is the RTX 4090.")

# NVIDIA RTX PRO 6000 Blackwell: the 300 W Max-Q Workstation Edition is a card of its own (same
# memory, lower clocks). The Server Edition is another (NVIDIA's datasheet, as quoted in public
# repositories, lists less bandwidth than the Workstation Edition's): its name is taken off the
# Workstation row, and it stays unknown until a page stating its figures is read.
TOMS_PRO6000 = ("Tom's Hardware's RTX PRO 6000 Blackwell variants report (Portuguese copy)",
                "https://ferreiradozezere.net/entretenimento/a-mansao-na-qual-adele-viveu-nao-e-vendida-por-ser-assombrada/2388/?random-post=1")
TOPCPU_PRO6000_ES = ("topcpu.net, Nvidia launches 96GB RTX 5090 model (RTX PRO 6000 Blackwell at GTC 2025, Spanish edition)",
                     "https://www.topcpu.net/es/news/nvidia-launches-96gb-rtx-5090-model-with-a-whopping-price-tag-of-10000")
_variants = unread(page(*TOMS_PRO6000, "\"Haverá três variantes do RTX Pro 6000: The Blackwell Workstation Edition, Max-Q Workstation "
                        "Edition e Blackwell Server Edition\", \"A configuração da memória é a mesma para as três variantes\""))
card("rtx-pro-6000-blackwell-max-q", "RTX PRO 6000 Blackwell Max-Q Workstation Edition", "NVIDIA",
     ["RTX PRO 6000 Max-Q", "RTX PRO 6000 Blackwell Max-Q", "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"],
     96, _variants + ", \"96 GB de total\"; " + page(*TOPCPU_PRO6000_ES, "\"tres versiones: Workstation, Max-Q Workstation y Server\", "
                                                     "\"una capacidad de memoria de 96 GB a través de un bus de memoria de 512 bits\""),
     1792, "derived: 28 Gbps GDDR7 x 512-bit = 1792 GB/s (" + _variants + ", \"28 Gbps\", \"com 1792 GB/s de largura de banda total\"; "
     + page(*TOPCPU_PRO6000_ES, "\"bus de memoria de 512 bits de ancho y una velocidad de memoria de 28 Gbps\"") + ")",
     note="The 300 W edition of the RTX PRO 6000 Blackwell (the Workstation Edition draws 600 W; Fixstars, "
          "https://blog.us.fixstars.com/what-kind-of-gpu-is-the-nvidia-rtx-pro-6000-blackwell-max-q): the same 96 GB and "
          "1,792 GB/s, so the same decode ceiling. Its lower tensor rates were not read on a citable page: the prefill "
          "ceiling is unknown (the Workstation Edition's bounds it from above).")
drop_alias("rtx-pro-6000-blackwell", "RTX PRO 6000 Blackwell Server Edition")

# NVIDIA GB10 (DGX Spark): Blackwell GPU on 128 GB of unified LPDDR5X.
AIINF_SPARK = ("ai-infrastructure.net, NVIDIA DGX Spark (GB10 desktop AI) (figures checked against NVIDIA's DGX Spark product page "
               "and hardware guide)", "https://ai-infrastructure.net/dgx-spark/")
MPT_SPARK = ("Meterpreter, A Supercomputer on Your Desk: NVIDIA Unveils the DGX Spark AI Superchip (Hot Chips 2025 report)",
             "https://meterpreter.org/a-supercomputer-on-your-desk-nvidia-unveils-the-dgx-spark-ai-superchip")
_spark_fp4 = page(*AIINF_SPARK, "\"It delivers up to 1 PFLOP of FP4 (with sparsity) / up to 1,000 TOPS\"")
card("nvidia-gb10", "GB10 (DGX Spark) 128GB", "NVIDIA", ["GB10", "NVIDIA GB10", "DGX Spark", "NVIDIA DGX Spark"],
     128, unread(page(*AIINF_SPARK, "\"128 GB LPDDR5x unified, 273 GB/s\"")) + "; " + page(*MPT_SPARK, "\"128 GB of LPDDR5x\""),
     273, unread(page(*AIINF_SPARK, "\"128 GB LPDDR5x unified, 273 GB/s\"")) + "; "
     + page(*MPT_SPARK, "\"the LPDDR5x operates at 9400 MT/s, providing 273–301 GB/s of bandwidth\" (NVIDIA's figure is the lower)"),
     fp4=(500, "1,000 TOPS (FP4 with sparsity), halved: " + _spark_fp4),
     fp8=(250, "derived: 1,000 TOPS (FP4 with sparsity) / 2 dense / 2 for FP8 (" + _spark_fp4 + ")"),
     bf16=(125, "derived: 1,000 TOPS (FP4 with sparsity) / 2 dense / 4 for FP16 (" + _spark_fp4 + "); the FP16-accumulate rate: "
           "whether FP32 accumulate runs at full rate on this part was not confirmed"),
     note="Unified LPDDR5X shared with the Grace CPU: the memory figure is the whole pool; llama.cpp's CUDA line prints "
          "what the driver gives the GPU (about 122 GiB). Decode is bound by the 273 GB/s.")

# NVIDIA Quadro (Pascal) and Turing/Ampere entry workstation cards.
SDP_P2000 = ("gpu.spicedreamphone.com, NVIDIA GRID K260Q vs NVIDIA Quadro P2000 (database copy)",
             "https://gpu.spicedreamphone.com/de/gpu/grid-k260q-vs-quadro-p2000")
GPGPU_QP = ("GP-GPU.com (AnandTech copy), Pascal Quadros Coming March 2017: GP100, P4000, P2000",
            "http://gp-gpu.com/pascal-quadros-coming-march-2017-gp100-p4000-p2000/")
card("quadro-p2000", "Quadro P2000", "NVIDIA", ["P2000", "NVIDIA Quadro P2000"],
     5, unread(page(*SDP_P2000, "Quadro P2000 column: \"5 GB\", \"GDDR5\"")) + "; "
     + page(*GPGPU_QP, "\"only 5 channels (160-bits) are enabled, which is also why it offers the more unusual memory capacity of 5GB\""),
     140, "derived: 7 Gbps GDDR5 x 160-bit = 140 GB/s (" + page(*SDP_P2000, "Quadro P2000 column: \"7 Gbps effective\", \"160 bit\", \"140.2 GB/s\"") + ")",
     fp32=(3.0, page(*SDP_P2000, "Quadro P2000 column: \"1024\" CUDA cores, \"3.031 TFLOPS\" FP32")), note=QP)
CPT_P620 = ("cputronic.com, NVIDIA Quadro P620 (database copy)", "https://cputronic.com/en/gpu/nvidia-quadro-p620")
CPT_P620_M2000 = ("cputronic.com, NVIDIA Quadro M2000 vs NVIDIA Quadro P620 (database copy)",
                  "https://cputronic.com/gpu/compare/nvidia-quadro-m2000-vs-nvidia-quadro-p620")
card("quadro-p620", "Quadro P620", "NVIDIA", ["P620", "NVIDIA Quadro P620"],
     2, page(*CPT_P620, "\"The 2GB GDDR5 memory\""),
     80.1, page(*CPT_P620_M2000, "Quadro P620: \"2GB\", \"128bit\", \"1252MHz\", \"80.13 GB/s\""),
     fp32=(1.4, page(*CPT_P620, "\"The 512 shading units\", \"a boost clock of 1354MHz\", \"theoretical performance of 1.386 TFLOPS\"")),
     note=QP + " The desktop card; the 4 GB Quadro P620 for laptops is not catalogued.")
SYS_GP100 = ("sysrqmts.com, NVIDIA Quadro GP100 vs NVIDIA Quadro RTX 5000 (database copy)",
             "https://sysrqmts.com/vi/gpus/compare/nvidia-quadro-gp100-vs-nvidia-quadro-rtx-5000")
card("quadro-gp100", "Quadro GP100", "NVIDIA", ["GP100", "NVIDIA Quadro GP100"],
     16, page(*SYS_GP100, "Quadro GP100 column: \"16 GB\", \"HBM2\""),
     732.2, "derived: 1.43 Gbps HBM2 x 4096-bit = 732.2 GB/s (" + page(*SYS_GP100, "Quadro GP100 column: \"715 MHz 1430 Mbps effective\", "
                                                                          "\"4096 bit\", \"732.2 GB/s\"") + ")",
     fp32=(10.3, page(*SYS_GP100, "Quadro GP100 column: \"FP32 (float) hiệu năng\" \"10.34 TFLOPS\", \"FP16 (half) hiệu năng\" \"20.67 TFLOPS (2:1)\"")),
     note="Pascal GP100: no tensor cores; FP16 vector at twice the FP32 rate (20.7 TFLOPS), which llama.cpp's FP16 paths can use.")
TC_T1000 = ("technical.city (CDN copy), T400 vs T1000 (database copy)", "https://technicalcity.b-cdn.net/en/video/T1000-vs-T400")
SYS_T600 = ("sysrqmts.com, NVIDIA RTX A2000 vs NVIDIA T600 (database copy)", "https://sysrqmts.com/ru/gpus/compare/nvidia-rtx-a2000-vs-nvidia-t600")
TU117 = ("Turing TU117 without tensor cores: FP16 runs on the shader cores, so the FP32 rate is the prefill proxy.")
card("t1000", "T1000 4GB", "NVIDIA", ["T1000", "NVIDIA T1000"],
     4, page(*TC_T1000, "T1000 column: \"Maximum RAM amount\" \"4 GB\", \"Memory type\" \"GDDR6\""),
     160, page(*TC_T1000, "T1000 column: \"Memory bus width\" \"128 Bit\", \"Memory clock speed\" \"1250 MHz\", \"Memory bandwidth\" \"160.0 GB/s\""),
     fp32=(2.5, page(*TC_T1000, "T1000 column: \"Pipelines / CUDA cores\" \"896\", \"Boost clock speed\" \"1395 MHz\", \"2.5 TFLOPS\"")),
     note=TU117 + " The 8 GB T1000 is not catalogued.")
card("t400", "T400 2GB", "NVIDIA", ["T400", "NVIDIA T400"],
     2, page(*TC_T1000, "T400 column: \"Maximum RAM amount\" \"2 GB\", \"Memory type\" \"GDDR6\""),
     80, page(*TC_T1000, "T400 column: \"Memory bus width\" \"64 Bit\", \"Memory clock speed\" \"1250 MHz\", \"Memory bandwidth\" \"80 GB/s\""),
     fp32=(1.1, page(*TC_T1000, "T400 column: \"Pipelines / CUDA cores\" \"384\", \"Boost clock speed\" \"1425 MHz\", \"1.094 TFLOPS\"")),
     note=TU117 + " The 4 GB T400 is not catalogued.")
card("t600", "T600 4GB", "NVIDIA", ["T600", "NVIDIA T600"],
     4, page(*SYS_T600, "T600 column: \"4 GB\", \"GDDR6\""),
     160, page(*SYS_T600, "T600 column: \"1250 MHz 10 Gbps effective\", \"128 bit\", \"160.0 GB/s\""),
     fp32=(1.7, page(*SYS_T600, "T600 column: \"640\" shaders, \"1335 MHz\" boost, FP32 \"1.709 TFLOPS\"")), note=TU117)
AVA_A1000 = ("Avalanche Notícias, Nvidia apresentou placas gráficas profissionais RTX A1000 e RTX A400 (launch report)",
             "https://avalanchenoticias.com.br/placas-de-video/nvidia-apresentou-placas-graficas-profissionais-rtx-a1000-e-rtx-a400-com-ray-tracing")
TAND_A400 = ("Tan Doanh, NVIDIA RTX A400 4GB GDDR6 (reseller listing reproducing NVIDIA's specification table)",
             "https://tandoanh.vn/nvidia-rtx-a400-4gb-gddr6-workstation-video-card")
_a1000_mem = page(*AVA_A1000, "RTX A1000: \"8 GB de memória GDDR6 com velocidade de 12 Gbit/s por contato e suporte para barramento de 128 bits, "
                  "para o qual é declarada largura de banda de 192 GB/s\"")
card("rtx-a1000", "RTX A1000 8GB", "NVIDIA", ["A1000", "RTX A1000", "NVIDIA RTX A1000"],
     8, _a1000_mem, 192, _a1000_mem,
     bf16=(r1(18 * 1460 * 1024 / 1e6), WS1024.format(sm=18, mhz=1460, wp=GA_WP, pages=page(*AVA_A1000,
           "RTX A1000: \"2.304 núcleos CUDA e 72 núcleos Tensor, com clock de 1.460 MHz\" (128 CUDA cores and 4 tensor cores per SM: 18 SMs)"))))
_a400_mem = page(*AVA_A1000, "RTX A400: \"4 GB de memória GDDR6 com velocidade de 12 Gbit/s por contato suportando um barramento de 64 bits, "
                 "para o qual a largura de banda é declarada em 96 GB/s\"")
card("rtx-a400", "RTX A400 4GB", "NVIDIA", ["A400", "RTX A400", "NVIDIA RTX A400"],
     4, _a400_mem, 96, unread(_a400_mem) + "; " + page(*TAND_A400, "\"GPU Memory | 4GB GDDR6\", \"Memory Interface | 64-bit\", \"Memory Bandwidth | 96GB/s\""),
     bf16=(10.8, page(*TAND_A400, "\"FP16 Tensor Performance | 21.7 TFLOPS\" (NVIDIA's figure with sparsity), halved")[:-len(" [read]")]
           + "; the same as 6 SMs x 1755 MHz x 1024 dense FP16 FLOP/clk/SM (" + page(*AVA_A1000, "RTX A400: \"768 núcleos CUDA e 24 núcleos "
           "tensores, operando na frequência de 1755 MHz\"") + ")"))

# Intel Arc Pro (Battlemage). As for the Arc B-series: FP16 XMX = the INT8 XMX TOPS halved.
HMC_B50 = ("hmc-tech.com, Intel Arc Pro B50 vs NVIDIA RTX PRO 4000 Blackwell (database copy)",
           "https://hmc-tech.com/gpu/intel-arc-pro-b50-vs-nvidia-rtx-pro-4000-blackwell")
TC_B50 = ("technical.city, Arc Pro B50 vs Xbox Series X GPU (database copy)", "https://technical.city/en/video/Xbox-Series-X-GPU-vs-Arc-Pro-B50")
SPD_B50 = ("SpeedUp, Intel Arc Pro B50 gaming performance (review)",
           "https://spdup.net/20251004/intel-arc-pro-b50-gaming-performance-surpasses-expectations-in-small-form-factor-builds")
card("arc-pro-b50", "Arc Pro B50 16GB", "Intel", ["Arc Pro B50", "Pro B50", "B50", "Intel Arc Pro B50 Graphics"],
     16, unread(page(*SPD_B50, "\"Memory: 16 GB GDDR6 on a 128-bit bus\"")) + "; " + page(*HMC_B50, "Arc Pro B50: \"16GB GDDR6\""),
     224, page(*TC_B50, "Arc Pro B50 column: \"Memory bus width\" \"128 Bit\", \"Memory clock speed\" \"1750 MHz\" (14 Gbps), \"Memory bandwidth\" \"224.0 GB/s\""),
     bf16=(85.2, "derived: 170.39 INT8 TOPS (XMX) / 2 for FP16 (" + page(*HMC_B50, "Arc Pro B50: INT8 \"170.39 TOPS Tensor\", FP16 \"85.2 TFLOPS Tensor "
           "(FP32 Accumulate)\"") + ")"))
HMC_B60 = ("hmc-tech.com, Intel Arc Pro B60 vs NVIDIA Quadro P620 (database copy)", "https://hmc-tech.com/gpu/intel-arc-pro-b60-vs-nvidia-quadro-p620")
TC_B60D = ("technical.city, Arc Pro B60 Dual vs Graphics 4-Core iGPU (database copy; the Dual is two B60 GPUs on one board)",
           "https://technical.city/en/video/Graphics-4-Core-iGPU-Arc-vs-Arc-Pro-B60-Dual")
card("arc-pro-b60", "Arc Pro B60 24GB", "Intel", ["Arc Pro B60", "Pro B60", "B60", "Intel Arc Pro B60 Graphics"],
     24, unread(page(*HMC_B60, "Arc Pro B60: \"24GB GDDR6\"")) + "; " + page(*TC_B60D, "\"Maximum RAM amount\" \"24 GB ×2\""),
     456, "derived: 19 Gbps GDDR6 x 192-bit = 456 GB/s (" + page(*TC_B60D, "per GPU: \"Memory bus width\" \"192 Bit ×2\", \"Memory clock speed\" "
                                                                    "\"2375 MHz\" (19 Gbps), \"Memory bandwidth\" \"456.0 GB/s\"") + ")",
     bf16=(98.3, "derived: 196.61 INT8 TOPS (XMX) / 2 for FP16 (" + page(*HMC_B60, "Arc Pro B60: INT8 \"196.61 TOPS Tensor\", BF16 \"98.3 TFLOPS Tensor\"") + ")"),
     note="One B60 GPU: a dual-GPU B60 board shows two such devices.")
ZOL_B70 = ("Zolotukhin, Intel Arc Pro B70 deep dive (blog, with Intel's product render)",
           "https://zolotukhin.ai/blog/2026-05-18-intel-arc-pro-b70-deep-dive-and-zincs-t-intel-plan/")
_b70 = page(*ZOL_B70, "\"The Intel Arc Pro B70 puts 32 gigabytes of ECC GDDR6 on a 256-bit bus, 608 GB per second of memory bandwidth, "
            "256 XMX matrix engines pushing 367 INT8 TOPS\"")
card("arc-pro-b70", "Arc Pro B70 32GB", "Intel", ["Arc Pro B70", "Pro B70", "B70", "Intel Arc Pro B70 Graphics"],
     32, _b70, 608, _b70, bf16=(183.5, "derived: 367 INT8 TOPS (XMX) / 2 for FP16 (" + _b70 + ")"),
     note="BMG-G31 (Big Battlemage). Only a blog states its figures here; Intel's product page was not read.")

# AMD: a cloud RDNA2 card and the MI300A APU.
INP_V620 = ("INpact Hardware, AMD dévoile sa Radeon Pro V620 : 32 Go de GDDR6 ECC et SR-IOV (launch report)",
            "https://www.inpact-hardware.com/article/2766/amd-devoile-sa-radeon-pro-v620-32-go-gddr6-ecc-et-sr-iov")
CHIP_V620 = ("CHIP.pl, Premiera Radeon Pro V620 (launch report)", "https://www.chip.pl/2021/11/premiera-radeon-pro-v620-karta-graficzna/")
card("radeon-pro-v620", "Radeon PRO V620 32GB", "AMD", ["Radeon PRO V620", "PRO V620", "V620"],
     32, unread(page(*INP_V620, "\"32 Go sur 256 bits (512 Go/s)\"")) + "; " + page(*CHIP_V620, "\"32 GB GDDR6 na 256-bitowej magistrali\""),
     512, unread(page(*INP_V620, "\"32 Go sur 256 bits (512 Go/s)\"")) + "; "
     + page(*CHIP_V620, "\"na tle szybkości 16 Gb/s układów VRAM przekłada się na 512 GB/s przepustowości\""),
     fp32=(20.3, page(*INP_V620, "\"72 Compute Units et 20,28 TFLOPS\"")),
     note=RDNA2 + " Infinity Cache is not counted in the bandwidth.")
EST_MI300 = ("Estaterule (3DNews copy), AMD releases Instinct MI300A and Instinct MI300X (launch report)",
             "https://estaterule.ru/news/amd-vypuskaet-samyj-bolshoj-i-slozhnyj-v-mire-gpu-so-192-gb-pamjati-i-gigantskij-apu-so-128-gb-na-rynok-vyhodjat-chipy-instinct-mi300a-i-instinct-mi300x")
_mi300a = page(*EST_MI300, "Instinct MI300A: \"содержит 24 ядра Zen 4, графическое ядро на архитектуре CDNA 3 с 228 блоками CU ... 128 ГБ памяти "
               "HBM3 с пропускной способностью 5,3 ТБ/с\"")
# MI300A matrix rates: AMD's spec list as copied in a launch write-up, and the per-CU rates of the
# ROCm documentation's CDNA 3 table (stated there for the MI300X: 304 CUs at 2100 MHz).
VENG_MI300A = ("Vengineer blog, AMD MI300A/MI300X details (AMD's MI300A specification list, copied)",
               "https://vengineer.hatenablog.com/entry/2023/12/11/080000")
_veng = ("MI300A: \"Compute Units : 228\", \"Peak Engine Clock : 2100 MHz\", \"Peak Half Precision (FP16) : 980.6 TFLOPs\", "
         "\"Peak bfloat16 : 980.6 TFLOPs\", \"Peak INT8 : 1.96 POPs\"")
ROCM_MI300 = ("AMD ROCm documentation, AMD Instinct MI300 series microarchitecture "
              "(https://rocm.docs.amd.com/en/docs-6.2.2/conceptual/gpu-arch/mi300.html), read in its source: "
              "github.com/ROCm/legacy-rocm-build docs/conceptual/gpu-arch/mi300.md",
              "https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/conceptual/gpu-arch/mi300.md")
_rocm300 = ("\"Peak-performance capabilities of the MI300X\": FLOPS/CLOCK/CU \"Matrix FP16\" \"2048\", \"Matrix BF16\" \"2048\", "
            "\"Matrix FP8\" \"4096\" (1307.4 and 2614.9 TFLOPS for the MI300X's 304 CUs)")
card("mi300a", "Instinct MI300A 128GB", "AMD", ["MI300A", "Instinct MI300A", "AMD Instinct MI300A"],
     128, unread(_mi300a) + "; " + page(*ROCM_SPECS, "Instinct table, row \"MI300A\": \"CDNA3\", \"gfx942\", VRAM (GiB) \"128\", "
                                        "Compute Units \"228 (38 per XCD)\""),
     5300, _mi300a,
     bf16=(980.6, "derived: CUs 228 x peak engine clock 2100 MHz x 2048 FLOP/clk/CU (dense matrix FP16/BF16) = 980.6 TFLOPS ("
           + unread(page(*VENG_MI300A, _veng)) + "; the per-CU rate from " + page(*ROCM_MI300, _rocm300) + ")"),
     fp8=(1961.2, "derived: CUs 228 x peak engine clock 2100 MHz x 4096 FLOP/clk/CU (dense matrix FP8) = 1961.2 TFLOPS, as "
          "AMD's \"Peak INT8 : 1.96 POPs\" at the same per-CU rate (" + unread(page(*VENG_MI300A, _veng)) + "; the per-CU "
          "rate from " + page(*ROCM_MI300, _rocm300) + ")"),
     note="APU: the 128 GB of HBM3 is shared with its 24 Zen 4 cores; decode is bound by the 5.3 TB/s. Matrix rates are "
          "AMD's dense peaks at the 2100 MHz peak engine clock.")

# --- seventh pass ---------------------------------------------------------------------------------
# Issue #30: cards llama.cpp users benchmark (the Apple M5 Pro, the RTX 4090 Laptop GPU, the GDDR6
# GTX 1650, the GTX 1650 SUPER, the RX 6500 XT, the RX 6400), each figure read on the page named.

# Apple M5 Pro. Apple states one bandwidth for the chip, "up to 307GB/s", and no figure per
# GPU-core count; Metal prints "Apple M5 Pro" for the 16-core and the 20-core GPU alike, so one
# entry answers to both and Apple's "up to" figure bounds either.
PRISM_M5P = ("Prism News, Apple unveils M5 Pro and M5 Max MacBook Pros (launch report quoting Apple)",
             "https://www.prismnews.com/news/apple-unveils-m5-pro-and-m5-max-macbook-pros-signals-pricier-tiers")
MIKE_M5P = ("Mike Shouts, Apple M5 Pro and M5 Max (launch report, Apple's spec highlights)", "https://mikeshouts.com/apple-m5-pro-m5-max/amp")
_m5p = page(*PRISM_M5P, "\"Apple specified that M5 Pro supports up to 64GB of unified memory with bandwidth up to 307GB per second\"")
card("apple-m5-pro", "Apple M5 Pro", "Apple", ["M5 Pro", "M5 Pro 16-core GPU", "M5 Pro 20-core GPU"],
     64, unread(_m5p) + "; " + page(*MIKE_M5P, "M5 Pro: \"up to 20-core GPU with Neural Accelerators, 16-core Neural Engine, up to 64 GB unified memory\""),
     307, unread(_m5p) + "; " + page(*MIKE_M5P, "M5 Pro: \"up to 307 GB/s unified memory bandwidth\""),
     note=AP_NOTE + " One entry for the 16-core and the 20-core GPU M5 Pro, which Metal names alike: Apple gives one "
          "\"up to 307GB/s\" for the chip, and no page found gives the 16-core part a lower figure. Apple publishes no "
          "TFLOPS figure for this chip: the prefill ceiling is unknown.")

# NVIDIA GeForce RTX 4090 Laptop GPU: AD103 (the desktop RTX 4080's die) on 16 GB of GDDR6,
# the same pattern as the other RTX 40 laptop rows.
NBC_4090L = ("Notebookcheck, NVIDIA GeForce RTX 4090 Laptop GPU vs NVIDIA T550 Laptop GPU",
             "https://notebookcheck.net/NVIDIA-GeForce-RTX-4090-Laptop-GPU-vs-T550-Laptop-GPU_11437_11429.247598.0.html")
_nv4090 = rd(NV_L40, 'RTX 4090 Laptop GPU: "NVIDIA CUDA®-Recheneinheiten" "9.728", "Boost-Taktung" up to "2.040 MHz", '
             '"Standard-Speicherkonfiguration" "16 GB GDDR6", "Breite der Speicherschnittstelle" "256 Bit"')
_bf4090 = r1(76 * 2040 * 512 / 1e6)
gpu("rtx-4090-laptop", "GeForce RTX 4090 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 4090 Laptop GPU"), 16, _nv4090,
    640, "derived: 20 Gbps x 256-bit = 640 GB/s, the fastest memory fitted (" + cut(_nv4090) + "; "
    + rd(NBC_4090L, "\"a 256 Bit memory bus. The RTX 4090 mobile uses 16 GB GDDR6 dedicated graphics memory with a clock speed of 20 Gbps "
         "(effective)\" (NVIDIA's page gives no memory speed)") + ")",
    bf16=_bf4090, bf16_src=TC512.format(sm=76, mhz=2040, wp=AD_WP, pages=cut(_nv4090) + " (9728 cores at 128 per SM) at the highest power limit [read]"),
    fp8=r1(_bf4090 * 2), fp8_src=f"derived: twice the FP16/FP32-accumulate rate (FP8 with FP32 accumulate, {AD_WP})",
    note=LAPTOP + " AD103, the desktop RTX 4080's die, not the desktop RTX 4090's AD102.")

# GeForce GTX 1650 with GDDR6 (2020): the same printed name as the GDDR5 card, 12 Gbps instead of
# 8 Gbps memory (192 GB/s, not 128). A ceiling is an upper bound, so the bare name must not give
# the GDDR5 card's lower figure: both entries carry it and it is ambiguous until the memory type
# is named, as the RTX 3060's is until the size is. The GDDR5 entry's id and name gain "gddr5",
# since an entry's own id and name must name it alone.
HEISE_1650 = ("heise online, Spielergrafikkarte GeForce GTX 1650 von allen Herstellern mit flottem GDDR6-RAM (launch report)",
              "https://www.heise.de/newsticker/meldung/Spielergrafikkarte-GeForce-GTX-1650-von-allen-Herstellern-mit-flottem-GDDR6-RAM-4698639.html")
GT_1650 = ("Geektopia, Nvidia hace oficial la GTX 1650 con GDDR6 (launch report)",
           "https://geektopia.es/es/technology/2020/04/03/noticias/amp/nvidia-hace-oficial-la-gtx-1650-con-gddr6-porque-el-suministro-de-gddr5-se-esta-agotando.html")
_g5 = next(r for r in rows if r["id"] == "gtx-1650")
_g5.update(id="gtx-1650-gddr5", name="GeForce GTX 1650 GDDR5",
           aliases=["GTX 1650 GDDR5", "GeForce GTX 1650 GDDR5", "GTX 1650", "1650", "NVIDIA GeForce GTX 1650"],
           note=T16 + " The original GDDR5 card (8 Gbps, 128 GB/s). The GDDR6 GTX 1650 (12 Gbps, 192 GB/s) prints the "
                "same name: name the memory (`GTX 1650 GDDR5`).")
for _k in [k for k in READ if k[0] == "gtx-1650"]:
    READ[("gtx-1650-gddr5", _k[1])] = READ.pop(_k)
_heise = rd(HEISE_1650, "\"Die GDDR6-Chips arbeiten mit 6000 MHz (12 Gbps) statt wie bisher 4000 MHz (8 Gbps), was die Übertragungsrate der "
            "4 GByte RAM von 128 auf 192 GByte/s erhöht\"")
gpu("gtx-1650-gddr6", "GeForce GTX 1650 GDDR6", "NVIDIA", ["GTX 1650 GDDR6", "GeForce GTX 1650 GDDR6", "GTX 1650", "1650", "NVIDIA GeForce GTX 1650"],
    4, _heise, 192, "derived: 12 Gbps x 128-bit = 192 GB/s (" + cut(_heise) + "; "
    + rd(GT_1650, "\"Mantiene los mismos 4 GB de memoria, con el mismo bus de 128 bits, pero el ancho de banda pasa de 128 GB/s hasta los 192 GB/s\"") + ")",
    fp32=r1(896 * 1590 * 2 / 1e6), fp32_src="derived: 896 CUDA cores x boost 1590 MHz x 2 FLOP/clk ("
    + rd(HEISE_1650, "\"senkt Nvidia den Boost-Takt von 1665 auf 1590 MHz – an der Konfiguration mit 896 Shader-Rechenkernen ändert sich hingegen nichts\"") + ")",
    note=T16 + " The GDDR6 GTX 1650 (2020; TU117, and later TU116 and TU106 boards with the same 896 cores and 12 Gbps memory). "
         "The GDDR5 card prints the same name: a bare `GTX 1650` is ambiguous until the memory is named (`GTX 1650 GDDR6`).")

TOMS_6400 = ("Tom's Hardware, AMD Radeon RX 6400 review, specifications table (review)",
             "https://www.tomshardware.com/reviews/amd-radeon-rx-6400-review-budget-in-almost-every-way")
# GeForce GTX 1650 SUPER: TU116, a card of its own (its printed name ends in SUPER).
PH_1650S = ("ProHoster, NVIDIA GeForce GTX 1660 Super and GTX 1650 Super final specifications (Urdu copy of a launch report)",
            "https://prohoster.info/ur/blog/novosti-interneta/okonchatelnye-harakteristiki-nvidia-geforce-gtx-1660-super-i-gtx-1650-super")
N3D_1650S = ("Noticias3D, GeForce GTX 1650 SUPER", "https://www.noticias3d.com/noticia/98741/geforce-gtx-1650-super.html")
_n3d = rd(N3D_1650S, "\"La GeForce GTX 1650 SUPER tiene ... 1.280 shaders\", \"la primera tiene uno de 128 bits\", \"utilizan 4 GB de GDDR6\"")
_ph = rd(PH_1650S, "\"GeForce GTX 1650 Super میں 4 GB GDDR6 ویڈیو میموری بھی ہوگی جس کی مؤثر فریکوئنسی 12 GHz ہے، جس سے منسلک ہونے کے لیے "
         "128 بٹ بس استعمال کی جائے گی\" (4 GB GDDR6 at an effective 12 GHz on a 128-bit bus), \"بوسٹ 1725 میگاہرٹز ہوگا\" (boost 1725 MHz)")
gpu("gtx-1650-super", "GeForce GTX 1650 SUPER", "NVIDIA", ["GTX 1650 Super", "1650 Super", "NVIDIA GeForce GTX 1650 SUPER"], 4, _n3d,
    192, "derived: 12 Gbps x 128-bit = 192 GB/s (" + cut(_ph) + "; " + cut(_n3d) + "; "
    + rd(TOMS_6400, "GTX 1650 Super column: \"VRAM Speed (Gbps)\" \"12\", \"VRAM Bus Width\" \"128\", \"Bandwidth (GBps)\" \"192\"") + ")",
    fp32=r1(1280 * 1725 * 2 / 1e6), fp32_src=f"derived: 1280 CUDA cores x boost 1725 MHz x 2 FLOP/clk ({cut(_n3d)}; {_ph})",
    note=T16 + " TU116 (the GTX 1660's die), not the GTX 1650.")

# AMD Radeon RX 6500 XT: Navi 24 on a 64-bit bus of 18 Gbps GDDR6. AMD's card has 4 GB; Sapphire
# also sells an 8 GB one at the same bus and speed. Both print one name, so the size is asked for.
HWZ_6500 = ("HardwareZone Singapore, AMD unveils Radeon RX 6500 XT graphics card with 4GB of VRAM (launch report)",
            "https://www.hardwarezone.com.sg/tech-news-amd-unveils-radeon-rx-6500-xt-graphics-card-4gb-vram")
MTP_6500 = ("Meterpreter, Sapphire unveils new Radeon RX 6500 XT equipped with 8GB video memory (launch report)",
            "https://meterpreter.org/sapphire-unveils-new-radeon-rx-6500-xt-equipped-with-8gb-video-memory")
_hwz = rd(HWZ_6500, "\"1,024 stream processors\", \"a boost clock of 2,815MHz\", \"4GB of GDDR6 memory\", "
          "\"18Gbps memory speed, 64-bit memory interface with up to 144GB/s bandwidth\"")
for gb in (4, 8):
    mem_q = _hwz if gb == 4 else rd(MTP_6500, "\"Sapphire launched a new Radeon RX 6500 XT, belonging to the PULSE series, equipped with 8GB "
                                    "of video memory, the capacity has been doubled, but the memory bit width and speed have not improved\"")
    bw_q = _hwz if gb == 4 else "derived: the 4 GB card's 18 Gbps x 64-bit = 144 GB/s (" + cut(mem_q) + "; " + _hwz + ")"
    gpu(f"rx-6500-xt-{gb}gb", f"Radeon RX 6500 XT {gb}GB", "AMD", ["RX 6500 XT", "6500 XT", "RX 6500XT", f"RX 6500 XT {gb}GB"], gb, mem_q,
        144, bw_q, fp32=r1(1024 * 2815 * 2 / 1e6), fp32_src=f"derived: 1024 stream processors x boost 2815 MHz x 2 FLOP/clk ({_hwz})",
        note="RDNA2: no matrix units; FP16 runs packed on the shader cores, so the FP32 rate is the prefill proxy. The 16 MB "
             f"Infinity Cache is not counted in the bandwidth. Both memory sizes print one name: name the size (`RX 6500 XT {gb}GB`).")

# AMD Radeon RX 6400: Navi 24 cut to 12 CUs, 4 GB on the same 64-bit bus at 16 Gbps.
GT_6400 = ("Geektopia, AMD pone a la venta en tiendas la RX 6400 (launch report)",
           "https://geektopia.es/es/technology/2022/04/20/noticias/amp/amd-pone-a-la-venta-en-tiendas-la-rx-6400-por-159-dolares.html")
_gt6400 = rd(GT_6400, "\"Dispone de 4 GB de GDDR6 a 16 GHz, que es otro recorte quedándose en los 128 GB/s de ancho de banda en vez de 144 GB/s\"")
gpu("rx-6400", "Radeon RX 6400 4GB", "AMD", ["RX 6400", "6400", "Radeon RX 6400"], 4, _gt6400,
    128, "derived: 16 Gbps x 64-bit = 128 GB/s (" + cut(_gt6400) + "; "
    + rd(TOMS_6400, "RX 6400 column: \"GPU Cores\" \"768\", \"VRAM Speed (Gbps)\" \"16\", \"VRAM (GB)\" \"4\", \"VRAM Bus Width\" \"64\", "
         "\"Bandwidth (GBps)\" \"128\"") + ")",
    note="RDNA2: no matrix units; FP16 runs packed on the shader cores. The 16 MB Infinity Cache is not counted in the "
         "bandwidth. No FP32 rate is catalogued: the pages read disagree on its boost clock (Tom's Hardware's table gives "
         "2815 MHz and 4.3 TFLOPS, the database copy at cputronic.com, https://cputronic.com/gpu/amd-radeon-rx-6400, 2321 MHz), "
         "so the prefill ceiling is unknown.")

# --- eighth pass: NVIDIA ------------------------------------------------------------------------
# Issue #30: NVIDIA parts the scoreboards and homelabs name that the catalog lacked. Every figure
# quotes the page it was read on; a database copy or a retailer's copy of NVIDIA's table is
# labelled so. Multi-GPU boards (Tesla K80, Tesla M60, A16) are catalogued per GPU: llama.cpp lists
# each GPU as its own device under the board's name.
KEPLER = "Kepler: no tensor cores and no fast FP16; llama.cpp runs FP32 kernels, so the FP32 rate is the prefill proxy."
AT_K80 = ("AnandTech, NVIDIA Launches Tesla K80, GK210 GPU (copy at foruma.anandtech.com)",
          "http://www.foruma.anandtech.com/show/8729/nvidia-launches-tesla-k80-gk210-gpu")
HWLX_K80 = ("Hardwareluxx, NVIDIA präsentiert die Dual-GPU Tesla K80 mit GK210-GPUs (launch report)",
            "https://hardwareluxx.de/index.php/news/hardware/grafikkarten/33386-nvidia-praesentiert-die-dual-gpu-tesla-k80-mit-gk210-gpus.html")
_k80 = unread(page(*AT_K80, "table \"Tesla K80\": \"Stream Processors 2 x 2496\", \"Boost Clock(s) 875MHz\", \"Memory Clock 5GHz GDDR5\", "
                   "\"Memory Bus Width 2 x 384-bit\", \"VRAM 2 x 12GB\", \"Single Precision 8.74 TFLOPS\""))
card("tesla-k80", "Tesla K80 (one GPU of two) 12GB", "NVIDIA", ["K80", "Tesla K80", "NVIDIA Tesla K80"],
     12, _k80 + " (12 GB per GPU); " + page(*HWLX_K80, "\"Ebenfalls pro GPU bereitgestellt werden 12 GB GDDR5 Grafikspeicher\""),
     240, "derived: 5 Gbps GDDR5 x 384-bit = 240 GB/s per GPU (" + _k80 + "; "
     + page(*HWLX_K80, "\"Die Speicherbandbreite gibt NVIDIA mit 480 GB pro Sekunde an - pro GPU entspricht dies 240 GB pro Sekunde\"") + ")",
     fp32=(r1(2496 * 875 * 2 / 1e6), "derived: 2496 CUDA cores x boost 875 MHz x 2 FLOP/clk per GPU, half the board's 8.74 TFLOPS (" + _k80 + " [read])"),
     note=KEPLER + " The K80 is two GK210 GPUs on one board, each with its own 12 GB and 240 GB/s; llama.cpp lists "
          "them as two devices named \"Tesla K80\", and the entry is one GPU. Current CUDA toolkits dropped compute "
          "capability 3.7: llama.cpp must be built with an older toolkit (https://github.com/ggml-org/llama.cpp/issues/12140).")

ELP_M60 = ("ElProCus, NVIDIA Tesla M60: Specifications, Architecture", "https://www.elprocus.com/nvidia-tesla-m60")
SYS_M60 = ("sysrqmts.com, NVIDIA Tesla M40 vs NVIDIA Tesla M60 (database copy)", "https://sysrqmts.com/pt/gpus/compare/nvidia-tesla-m40-vs-nvidia-tesla-m60")
_m60 = page(*SYS_M60, "Tesla M60 column: \"1253 MHz 5 Gbps effective\", \"8 GB\", \"256 bit\", \"160.4 GB/s\", \"Unidades de shading\" \"2048\", "
            "\"Frequência de Boost\" \"1178 MHz\", FP32 \"4.825 TFLOPS\" (per GPU)")
card("tesla-m60", "Tesla M60 (one GPU of two) 8GB", "NVIDIA", ["M60", "Tesla M60", "NVIDIA Tesla M60"],
     8, unread(page(*ELP_M60, "\"It features two GPUs for each Board\", \"NVIDIA CUDA® Cores – 4096\", \"GPU memory – 16 GB of GDDR5 memory/8 GB for each GPU\"")) + "; " + _m60,
     160.4, _m60, fp32=(4.8, "derived: 2048 CUDA cores x boost 1178 MHz x 2 FLOP/clk per GPU (" + unread(_m60) + ") [read]"),
     note="Maxwell: no tensor cores and no fast FP16; llama.cpp runs FP32 kernels, so the FP32 rate is the prefill proxy. "
          "The M60 is two GM204 GPUs on one board, each with its own 8 GB; llama.cpp lists them as two devices named "
          "\"Tesla M60\", and the entry is one GPU.")

# Pascal mining cards (no display outputs), at NVIDIA's launch configuration. Boards sold later
# with more memory print the same name; no page stating their figures was read, so they are not
# catalogued: a name with their size (or a device line reporting it) stays unknown, as the 8 GB
# T1000 does.
MINING = ("Pascal mining card: no tensor cores and no fast FP16; llama.cpp runs FP32 or int8 dp4a kernels, so the FP32 "
          "rate is the prefill proxy. The PCIe link is narrow (x4 or x1 on most boards): it slows loading and "
          "multi-GPU splits, not decode on one card.")
SYS_P102 = ("sysrqmts.com, NVIDIA Jetson TK1 GPU vs NVIDIA P102-100 (database copy)", "https://sysrqmts.com/gpus/compare/nvidia-jetson-tk1-gpu-vs-nvidia-p102-100")
BTO_P102 = ("BTO PC Fan, マイニング向けチップGP102 (P102-100 report)", "https://bto-pc-fan.com/2018/03/14/post-1316")
_p102 = page(*SYS_P102, "P102-100 column: \"1376 MHz 11 Gbps effective\", \"5 GB\", \"GDDR5X\", \"320 bit\", \"440.3 GB/s\", \"Shading units\" \"3200\", "
             "\"Boost clock\" \"1683 MHz\", FP32 \"10.77 TFLOPS\"")
_bto = page(*BTO_P102, "\"CUDA coreの数が減らされて3200\", \"メモリはGDDR5Xであるものの、容量は5GB。またメモリインターフェースも320-bit。メモリの速度は11Gbps\"")
card("p102-100-5gb", "P102-100 5GB", "NVIDIA", ["P102-100", "NVIDIA P102-100", "P102-100 5GB"],
     5, unread(_bto) + "; " + _p102,
     440, "derived: 11 Gbps GDDR5X x 320-bit = 440 GB/s (" + unread(_bto) + "; " + _p102 + ")",
     fp32=(r1(3200 * 1683 * 2 / 1e6), "derived: 3200 CUDA cores x boost 1683 MHz x 2 FLOP/clk (" + unread(_p102) + ") [read]"),
     note=MINING + " GP102 (the GTX 1080 Ti's die) at NVIDIA's launch configuration, 5 GB. Boards sold with 10 GB print the "
          "same name; no page stating their figures was read, so they are not catalogued: `P102-100 10GB`, or a device "
          "line reporting about 10 GB, is unknown (give a `--catalog` entry), never this card.")
GT_P104 = ("Geektopia, Gigabyte presenta la P104-100 4G para criptominería (launch report)",
           "http://geektopia.es/es/technology/2017/12/27/noticias/gigabyte-presenta-la-p104-100-4g-para-criptomineria.html")
SYS_P104 = ("sysrqmts.com, NVIDIA P104-100 vs NVIDIA P106-100 (database copy)", "https://sysrqmts.com/es/gpus/compare/nvidia-p104-100-vs-nvidia-p106-100")
_p104 = page(*GT_P104, "\"1920 núcleos CUDA con frecuencia base de 1607 MHz y turbo de 1733 MHz\", \"el modelo baja a 4 GB de memoria GDDR5X en vez "
             "de disponer de 8 GB, aunque sigue funcionando a 10 Gb/s con un bus de 256 bits\"")
card("p104-100-4gb", "P104-100 4GB", "NVIDIA", ["P104-100", "NVIDIA P104-100", "P104-100 4GB"],
     4, unread(_p104) + "; " + page(*SYS_P104, "P104-100 column: \"4 GB\", \"GDDR5X\""),
     320, "derived: 10 Gbps GDDR5X x 256-bit = 320 GB/s (" + unread(_p104) + "; "
     + page(*SYS_P104, "P104-100 column: \"1251 MHz 10 Gbps effective\", \"4 GB\", \"GDDR5X\", \"256 bit\", \"320.3 GB/s\"") + ")",
     fp32=(r1(1920 * 1733 * 2 / 1e6), "derived: 1920 CUDA cores x boost 1733 MHz x 2 FLOP/clk (" + _p104 + ")"),
     note=MINING + " GP104 with 4 GB enabled at launch. Boards sold with 8 GB print the same name; no page stating them was "
          "read, so they are not catalogued: `P104-100 8GB`, or a device line reporting about 8 GB, is unknown.")
TSHW_P106 = ("Tom's Hardware Italia, Palit sta resuscitando una vecchia GPU (P106 report)", "https://www.tomshw.it/hardware/palit-sta-resuscitando-una-vecchia-gpu-a-chi-e-rivolta/")
_p106 = page(*SYS_P104, "P106-100 column: \"2002 MHz 8 Gbps effective\", \"6 GB\", \"GDDR5\", \"192 bit\", \"192.2 GB/s\", \"Unidades de shading\" \"1280\", "
             "\"Aumento de frecuencia\" \"1709 MHz\", FP32 \"4.375 TFLOPS\"")
card("p106-100", "P106-100 6GB", "NVIDIA", ["P106-100", "NVIDIA P106-100", "P106-100 6GB"],
     6, unread(page(*TSHW_P106, "\"La P106-100 è una versione di fascia superiore con 1280 CUDA Core e 6GB di memoria GDDR5\"")) + "; " + _p106,
     192, "derived: 8 Gbps GDDR5 x 192-bit = 192 GB/s (" + _p106 + ")",
     fp32=(r1(1280 * 1709 * 2 / 1e6), "derived: 1280 CUDA cores x boost 1709 MHz x 2 FLOP/clk (" + _p106 + ")"),
     note=MINING + " GP106, the GTX 1060 6GB's die. The 3 GB part is the P106-090 (a name of its own, not catalogued).")

# NVIDIA CMP HX mining cards (Turing and Ampere, no display outputs). NVIDIA limits the FP32 and
# FP16 rates of most below their dies' (a public report, all but the 30HX and 40HX:
# https://github.com/dartraiden/NVIDIA-patcher/issues/146), and no page states any CMP card's
# rates, so no compute figure is catalogued: the prefill ceiling is unknown, the decode ceiling
# (memory and bandwidth) stands.
CMP = ("CMP mining card: NVIDIA limits the FP32/FP16 rates of CMP cards below their dies' (a public report says all but "
       "the 30HX and 40HX) and no page states any CMP card's rates, so the prefill ceiling is unknown; decode is bound "
       "by the bandwidth. PCIe link x4 or x1 on most boards.")
TDZ_30HX = ("3DFXzone, GIGABYTE CMP 30HX (report)", "http://3dfxzone.it/mobile/news/reader.php?objid=31798&page=46")
CPT_30HX = ("cputronic.com, NVIDIA CMP 30HX (database copy)", "https://cputronic.com/en/gpu/nvidia-cmp-30hx")
_c30 = page(*CPT_30HX, "\"Memory Type: GDDR6\", \"Size: 6 GB\", \"A 192-bit bus provides 336 GB/s\", \"CUDA Cores: 1408\"")
card("cmp-30hx", "CMP 30HX 6GB", "NVIDIA", ["CMP 30HX", "NVIDIA CMP 30HX", "30HX"],
     6, unread(page(*TDZ_30HX, "\"basata sulla \\\"GPU\\\", o meglio CMP, TU116-100, ed è equipaggiata con 6GB di memoria video GDDR6\"")) + "; " + _c30,
     336, _c30, note=CMP + " TU116, the GTX 1660 SUPER's die and memory.")
TPU_40HX = ("TechPowerUp GPU Database, NVIDIA CMP 40HX (database copy)", "https://www.techpowerup.com/gpu-specs/cmp-40hx.c3781")
AG_40HX = ("askgeek.io, NVIDIA CMP 40HX (database copy)", "https://askgeek.io/en/gpus/NVIDIA/CMP-40HX")
_c40 = unread(page(*TPU_40HX, "\"NVIDIA has paired 8 GB GDDR6 memory with the CMP 40HX, which are connected using a 256-bit memory interface\", "
                   "\"memory is running at 1750 MHz (14 Gbps effective)\""))
card("cmp-40hx", "CMP 40HX 8GB", "NVIDIA", ["CMP 40HX", "NVIDIA CMP 40HX", "40HX"],
     8, _c40 + " [read]", 448, "derived: 14 Gbps GDDR6 x 256-bit = 448 GB/s (" + _c40 + "; "
     + page(*AG_40HX, "\"Memory bandwidth - 448.0 GB/s\"") + ")", note=CMP + " TU106, the RTX 2070's die.")
SH_50HX = ("Svět hardware, MSI uvedlo těžební kartu CMP 50HX (launch report)", "https://www.svethardware.cz/msi-uvedlo-tezebni-kartu-cmp-50hx-se-45-mh-s/55335")
TC_50HX = ("technical.city, CMP 50HX vs Xbox Series S GPU (database copy)", "https://technical.city/en/video/Xbox-Series-S-GPU-vs-CMP-50HX")
_c50 = unread(page(*SH_50HX, "\"Karta využívá čipu TU102\", \"místo 4352 CUDA jader jen 3584\", \"najdeme zde 10 GB GDDR6 14Gbps paměti na 320bitové sběrnici\""))
card("cmp-50hx", "CMP 50HX 10GB", "NVIDIA", ["CMP 50HX", "NVIDIA CMP 50HX", "50HX"],
     10, _c50 + " [read]", 560, "derived: 14 Gbps GDDR6 x 320-bit = 560 GB/s (" + _c50 + "; "
     + page(*TC_50HX, "CMP 50HX column: \"Memory bus width\" \"320 Bit\", \"Memory bandwidth\" \"560.0 GB/s\"") + ")",
     note=CMP + " TU102, the RTX 2080 Ti's die.")
SKW_90HX = ("Skywind (reseller listing reproducing the TechPowerUp database text), CMP 90HX 10GB GDDR6X 320BIT",
            "http://hy.skywindintl.com/graphics-cards-brand-cmp-90hx-10gb-gddr6x-320bit-mining-machine-card-product")
_c90 = unread(page(*SKW_90HX, "\"NVIDIA-ն զուգակցել է 10 ԳԲ GDDR6X հիշողությունը CMP 90HX-ի հետ, որոնք միացված են 320-բիթանոց հիշողության "
                   "միջերեսի միջոցով\", \"հիշողությունն աշխատում է 1188 ՄՀց հաճախականությամբ (արդյունավետ 19 Գբիտ/վրկ)\" (10 GB GDDR6X on a "
                   "320-bit interface, 19 Gbps effective; GA102 with 6400 shaders)"))
TC_90HX = ("technical.city (CDN copy), CMP 90HX vs GeForce 320M (database copy)", "https://technicalcity.b-cdn.net/en/video/GeForce-320M-vs-CMP-90HX")
_tc90 = page(*TC_90HX, "CMP 90HX column: \"Memory type\" \"GDDR6X\", \"Maximum RAM amount\" \"10 GB\", \"Memory bus width\" \"320 Bit\", "
             "\"Memory clock speed\" \"1188 MHz\", \"Memory bandwidth\" \"760.3 GB/s\"")
card("cmp-90hx", "CMP 90HX 10GB", "NVIDIA", ["CMP 90HX", "NVIDIA CMP 90HX", "90HX"],
     10, _c90 + "; " + _tc90, 760, "derived: 19 Gbps GDDR6X x 320-bit = 760 GB/s (" + _c90 + "; " + _tc90 + ")",
     note=CMP + " GA102, the RTX 3080's die and memory.")
CB_170HX = ("ComputerBase, Nvidia CMP 170HX mit GA100 und HBM2 (report)", "http://www.computerbase.de/2021-09/gpu-mining-nvidia-cmp-170hx-mit-ga100-und-hbm2-erreicht-170-mh-s/")
PCW_170HX = ("PCWorld Polska, NVIDIA CMP 170HX: 164 MH/s w karcie dla górników (report)", "https://www.pcworld.pl/news/NVIDIA-CMP-170HX-164-MH-s-w-karcie-dla-gornikow,431222.html")
_c170 = unread(page(*CB_170HX, "\"nutzt der CMP 170HX 8 GB HBM2e. Dieser taktet mit 1.458 MHz, die in Verbindung mit dem 4.096-Bit-Interface ... "
                    "eine Speicherbandbreite von 1,5 TB/s ergeben\""))
card("cmp-170hx", "CMP 170HX 8GB", "NVIDIA", ["CMP 170HX", "NVIDIA CMP 170HX", "170HX"],
     8, _c170 + "; " + page(*PCW_170HX, "\"170HX oferuje tylko 8 GB pamięci HBM2e\""), 1493, "derived: 1458 MHz HBM2e (2.916 Gbps) x 4096-bit = 1493 GB/s (" + _c170 + "; "
     + page(*PCW_170HX, "\"170HX oferuje tylko 8 GB pamięci HBM2e ... (sądząc po 4096-bitowej szynie) i maksymalną przepustowość 1,493 GB/s\"") + ")",
     note=CMP + " GA100 (the A100's die) with 70 SMs; its FP32 is limited far below the A100's. Some drivers print "
          "\"NVIDIA Graphics Device\" for it, which names no card.")

# China-market datacenter parts (2023-2024). Tom's Hardware's table reproduces a retailer listing.
TOMS_H20 = ("Tom's Hardware, New Nvidia AI GPUs designed to get around US export bans come to China: H20, L20 and L2",
            "https://www.tomshardware.com/pc-components/gpus/new-nvidia-ai-gpus-designed-to-get-around-us-export-bans-come-to-china-h20-l20-and-l2-to-fill-void-left-by-restricted-models")
_dense = (" The table does not say whether the tensor rates are dense; they are read as dense, which bounds the prefill "
          "ceiling from above if they are not.")
card("h20", "H20 96GB", "NVIDIA", ["H20", "NVIDIA H20", "HGX H20"],
     96, page(*TOMS_H20, "HGX H20: \"Memory 96 GB HBM3\""), 4000, page(*TOMS_H20, "HGX H20: \"Memory Bandwidth 4.0 TB/s\""),
     bf16=(148, page(*TOMS_H20, "HGX H20: \"BF16 I FP16 Tensor 148 I 148 TFLOPS\" (not marked as with sparsity: read as dense)")),
     fp8=(296, page(*TOMS_H20, "HGX H20: \"INT8 I FP8 Tensor 296 I 296 TFLOPS\" (not marked as with sparsity: read as dense)")),
     note="Hopper GH100 cut for the China market: the H100's memory system with about a seventh of its tensor rate, "
          "so decode ceilings near an H100's and prefill far lower." + _dense)
card("l20", "L20 48GB", "NVIDIA", ["L20", "NVIDIA L20", "L20 PCIe"],
     48, page(*TOMS_H20, "L20 PCIe: \"Memory 48 GB GDDR6 w/ ECC\""), 864, page(*TOMS_H20, "L20 PCIe: \"Memory Bandwidth 864 GB/s\""),
     bf16=(119.5, page(*TOMS_H20, "L20 PCIe: \"BF16 I FP16 Tensor 119.5 I 119,5 TFLOPS\" (not marked as with sparsity: read as dense)")),
     fp8=(239, page(*TOMS_H20, "L20 PCIe: \"INT8 I FP8 Tensor 239 I 239 TFLOPS\" (not marked as with sparsity: read as dense)")),
     note="Ada AD102 for the China market: the L40's 48 GB and 864 GB/s with lower tensor rates." + _dense)

PAN_A16 = ("Panchaea (reseller listing reproducing NVIDIA's A16 specification table)", "https://panchaea.com/products/graphics-cards/nvidia-a16")
card("a16", "A16 (one GPU of four) 16GB", "NVIDIA", ["A16", "NVIDIA A16"],
     16, page(*PAN_A16, "\"GPU memory | 4 * 16GB GDDR6\""), 200, page(*PAN_A16, "\"Memory Bandwidth | 4 * 200GB/s\""),
     bf16=(17.9, page(*PAN_A16, "\"FP16 || Sparsity (TFLOPS) | 4x 17.9 || 4x 35.9\" (FP16 tensor per GPU, dense | with sparsity)")),
     note="The A16 board is four GA107 GPUs, each with its own 16 GB and 200 GB/s; llama.cpp lists them as four devices "
          "named \"NVIDIA A16\", and the entry is one GPU. No NVLink: a model split across them goes over PCIe.")

# GeForce RTX 5050 (desktop): GB207, the only RTX 50 card on GDDR6.
TWK_5050 = ("Tweakers, Nvidia kondigt RTX 5050-videokaart met 8GB GDDR6-geheugen aan (launch report)",
            "https://tweakers.net/nieuws/236558/nvidia-kondigt-rtx-5050-videokaart-met-8gb-gddr6-geheugen-aan-voor-259-euro.html")
IOT_5050 = ("io-tech, NVIDIA julkaisi GeForce RTX 5050 -näytönohjaimen (launch report citing NVIDIA)",
            "https://www.io-tech.fi/uutinen/nvidia-julkaisi-geforce-rtx-5050-naytonohjaimen-budjettikokoonpanoihin/")
_io5050 = page(*IOT_5050, "\"Grafiikkapiirissä on käytössä kaikki 20 SM-yksikköä eli 2560 CUDA-ydintä\", \"perus- ja Boost-kellotaajuudet ovat 2,31 ja "
               "2,57 GHz\", \"RTX 5050:n muistiohjain on 128-bittinen ja sen jatkeena on 8 Gt 20 Gbps:n GDDR6-muistia, mikä tuottaa 320 Gt/s muistikaistaa\"")
_bf5050 = r1(20 * 2570 * 512 / 1e6)
card("rtx-5050", "GeForce RTX 5050", "NVIDIA", ["RTX 5050", "5050", "NVIDIA GeForce RTX 5050"],
     8, unread(page(*TWK_5050, "\"Nvidia voorziet de RTX 5050 van een 128bit-geheugenbus en 8GB aan GDDR6-geheugen\"")) + "; " + _io5050,
     320, unread(page(*TWK_5050, "\"De RTX 5050 haalt een geheugenbandbreedte van 320GB/s\"")) + "; " + _io5050,
     bf16=(_bf5050, TC512.format(sm=20, mhz=2570, wp=GB_WP, pages=unread(_io5050)) + " [read]"),
     fp8=(r1(_bf5050 * 2), f"derived: twice the FP16/FP32-accumulate rate (FP8 with FP32 accumulate, {GB_WP})"),
     note="Not the RTX 5050 Laptop GPU (not catalogued), whose name keeps \"Laptop\". A database page lists 14 Gbps (224 GB/s) "
          "from before launch; NVIDIA's launch figures are 20 Gbps and 320 GB/s.")

# GeForce RTX 3050 Laptop GPU (4 GB, GA107).
ADB_3050L = ("cpu-gpu.alldbin.com, GeForce RTX 3050 4GB Mobile and HD Graphics 4600 comparison (database copy)",
             "https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-3050-4GB-mobile-and-HD-Graphics-4600-comparison.html")
HMC_3050L = ("hmc-tech.com, NVIDIA GeForce RTX 4050 Laptop 30W vs NVIDIA GeForce RTX 3050 Laptop 80W (database copy)",
             "https://hmc-tech.com/gpu/nvidia-geforce-rtx-4050-laptop-30w-vs-nvidia-geforce-rtx-3050-laptop-80w")
_a3050 = page(*ADB_3050L, "RTX 3050 4GB Mobile: \"Pipelines / CUDA cores\" \"2048\", \"Memory type\" \"GDDR6\", \"Maximum RAM amount\" \"4 GB\", "
              "\"Memory bus width\" \"128 Bit\", \"Memory clock speed\" \"12000 MHz\", \"Power consumption (TDP)\" \"60 Watt (35 - 80 Watt TGP)\"")
gpu("rtx-3050-laptop", "GeForce RTX 3050 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 3050 Laptop GPU"), 4, _a3050,
    192, "derived: 12 Gbps x 128-bit = 192 GB/s (" + unread(_a3050) + ") [read]",
    bf16=r1(16 * 1740 * 512 / 1e6), bf16_src=TC512.format(sm=16, mhz=1740, wp=GA_WP, pages=unread(page(*HMC_3050L,
        "\"NVIDIA GeForce RTX 3050 Laptop 80W\" \"2048 Shaders\" \"4GB GDDR6\" \"1740MHz\" (128 per SM, so 16 SMs), FP16 \"14.25 TFLOPS Tensor "
        "(FP32 Accumulate)\"")) + " at the highest power limit [read]"),
    note=LAPTOP + " The 4 GB GA107 part; the RTX 3050 6GB Laptop GPU and the RTX 3050 Ti Laptop GPU print names of their own "
         "and are not catalogued. The database copy gives 12 Gbps memory; NVIDIA's own memory speed was not read.")

# Jetson Orin Nano 8GB (with JetPack 6.1's "Super" clocks). Unified LPDDR5 shared with the CPU.
BJ_ORIN = ("Brojogopal Sapui, Jetson Orin Nano Super: Edge AI Hardware Deep Dive (figures from NVIDIA's Jetson Orin Nano Super "
           "Developer Kit datasheet)", "https://www.brojogopalsapui.com/ai-foundations/sub_contents/AI_hardware/jetson_orin_nano_light.html")
SCR_ORIN = ("NVIDIA Jetson Orin Nano Series data sheet (copy on Scribd)", "https://www.scribd.com/document/673174036/Orin-nano-datasheet")
_orin = unread(page(*BJ_ORIN, "\"Memory 8 GB LPDDR5 128-bit, 3200 MT/s\", \"Memory BW 102 GB/s was 68 GB/s\", \"CUDA cores 1 024\", "
                    "\"SM count 8\", \"GPU clock 1.02 GHz was 625 MHz\", \"AI perf 67 TOPS INT8 sparse\""))
card("jetson-orin-nano-8gb", "Jetson Orin Nano 8GB (Super clocks)", "NVIDIA",
     ["Jetson Orin Nano", "Orin Nano", "Jetson Orin Nano 8GB", "Jetson Orin Nano Super", "Orin Nano Super"],
     8, _orin + "; " + page(*SCR_ORIN, "\"Jetson Orin Nano 8GB (ON 8GB) - Ampere GPU + ARM Cortex-A78AE CPU + 8GB LPDDR5\", \"ON 8GB: 8GB 128-bit LPDDR5 DRAM\""),
     102, _orin + " (the Super clocks; 68 GB/s before JetPack 6.1) [read]",
     bf16=(16.8, "derived: 67 INT8 TOPS (sparse) / 2 dense / 2 for FP16 = 16.75 TFLOPS, the same as 8 SMs x 1020 MHz x 2048 dense "
           "FP16 FLOP/clk/SM (" + _orin + "); the Orin Nano has no DLA, so the TOPS are the GPU's [read]"),
     note="Unified LPDDR5 shared with the CPU: the memory figure is the whole pool, of which the GPU gets what the OS leaves. "
          "The figures are JetPack 6.1's \"Super\" mode (25 W); the original 15 W mode runs 68 GB/s. llama.cpp's CUDA line "
          "prints \"Orin\" for every Jetson Orin module (AGX, NX, Nano), so that name is not an alias: give `Orin Nano`.")

# (end of the eighth pass)



# --- ninth pass: AMD, Intel and others --------------------------------------------------------
# Issue #30: AMD, Intel and other parts the scoreboards and homelabs name that the catalog lacked.

# Every figure quotes the page it was read on ("[read]"); a database copy, a retail listing or a
# pre-launch table is labelled so. Printed names follow libdrm's amdgpu.ids, which RADV prints
# (https://gitlab.freedesktop.org/mesa/drm/-/blob/main/data/amdgpu.ids): where one printed name
# covers several cards, each carries it and it is ambiguous until the card is named.

# AMD Radeon RX 6700: Navi 22 cut to 36 CUs, 10 GB on a 160-bit bus.
TOMSFR_6700 = ("Tom's Hardware France, AMD référence la Radeon RX 6700 sur son site (launch report)",
               "https://www.tomshardware.fr/amd-reference-la-radeon-rx-6700-sur-son-site/")
_6700 = page(*TOMSFR_6700, "\"un GPU Navi 22 avec 36 unités de calcul / 2304 processeurs de flux\", \"des fréquences références jeu / "
             "Boost de respectivement 2174 MHz et 2450 MHz\", \"10 Go de GDDR6 cadencés à 16 Gbit/s sur un bus de 160 bits. La bande "
             "passante mémoire est ainsi de 320 Go/s\"")
card("rx-6700", "Radeon RX 6700 10GB", "AMD", ["RX 6700", "6700", "RX6700", "Radeon RX 6700", "AMD Radeon RX 6700"],
     10, _6700, 320, _6700,
     fp32=(r1(2304 * 2450 * 2 / 1e6), f"derived: 2304 stream processors x boost 2450 MHz x 2 FLOP/clk ({_6700})"),
     note=RDNA2 + " The 80 MB Infinity Cache is not counted in the bandwidth. Not the RX 6700 XT (12 GB, 384 GB/s) nor the "
          "RX 6700M (separate entries).")

# Polaris 11 and 12: RX 560, RX 460 and RX 550, each sold with 2 GB or 4 GB under one printed name.
TOMS_550 = ("Tom's Hardware, AMD Radeon RX 550 graphics card prices (Radeon RX 500-series table)",
            "https://www.tomshardware.com/uk/reviews/amd-radeon-rx-550-graphics-card-prices,5250.html")
HWS_560 = ("HWSetup, AMD Radeon RX 560 (launch report)", "https://hwsetup.it/mobile/news/reader.php?objid=26347&page=14")
NBC_460 = ("Notebookcheck, AMD Radeon RX 460 (Desktop)", "https://www.notebookcheck.net/AMD-Radeon-RX-460-Desktop.171187.0.html")
FPSB_460 = ("fpsbench.com, AMD Radeon RX 460 vs AMD Radeon RX 6500M (database copy)",
            "https://fpsbench.com/compare/gpu/amd-radeon-rx-460-vs-amd-radeon-rx-6500m")
_t550 = ("table: RX 560 | RX 550: \"Shader Units\" \"1024\" | \"512\", \"Base Clock / Boost Clock\" \"1175 MHz / 1275 MHz\" | "
         "\"1100 MHz / 1183 MHz\", \"Memory\" \"Up To 4GB GDDR5 @ 7 Gb/s128-bit\" (both)")
_hws560 = page(*HWS_560, "\"Il frame buffer della Radeon RX 560 può essere realizzato con 2GB, oppure 4GB, di memoria VRAM GDDR5, la cui "
               "velocità effettiva è pari a 7GHz, e scambia dati con la GPU mediante un bus a 128-bit\"")
POL11 = POLARIS + " Polaris 11/12 on a 128-bit bus of 7 Gbps GDDR5."
for gb in (4, 2):
    card(f"rx-560-{gb}gb", f"Radeon RX 560 {gb}GB", "AMD",
         ["RX 560", "560", "RX560", "RX 560 Series", "Radeon RX 560 Series", f"RX 560 {gb}GB"],
         gb, _hws560, 112, "derived: 7 Gbps x 128-bit = 112 GB/s (" + unread(_hws560) + "; " + page(*TOMS_550, _t550) + ")",
         fp32=(r1(1024 * 1275 * 2 / 1e6), "derived: 1024 stream processors x boost 1275 MHz x 2 FLOP/clk (" + page(*TOMS_550, _t550) + ")"),
         note=POL11 + f" Both memory sizes print one name (RADV: \"AMD Radeon RX 560 Series\"): name the size (`RX 560 {gb}GB`). "
              "Later RX 560 boards with 14 CUs (896 stream processors) print the same name; the 16-CU figure bounds them.")
_t550q = page(*TOMS_550, "\"The RX 550 comes equipped with either 2GB or 4GB of GDDR5 memory at 7 Gb/s, which communicates over an "
              "aggregate 128-bit interface\"")
for gb in (4, 2):
    card(f"rx-550-{gb}gb", f"Radeon RX 550 {gb}GB", "AMD", ["RX 550", "RX550", "RX 550 Series", "Radeon RX 550 Series", f"RX 550 {gb}GB"],
         gb, _t550q, 112, "derived: 7 Gbps x 128-bit = 112 GB/s (" + _t550q + ")",
         fp32=(r1(512 * 1183 * 2 / 1e6), "derived: 512 stream processors x boost 1183 MHz x 2 FLOP/clk (" + page(*TOMS_550, _t550) + ")"),
         note=POL11 + f" Both memory sizes print one name: name the size (`RX 550 {gb}GB`). Boards with 6 Gbps memory, a 64-bit "
              "bus or 640 stream processors also sell as RX 550; these figures (AMD's 512-SP, 7 Gbps card) bound the first two.")
_nbc460 = page(*NBC_460, "\"The RX 460 uses 14 out of 16 Compute Units\" (14 x 64 = 896 stream processors), \"AMD specifies the clock "
               "with 1080 (base) up to 1200 MHz (Boost)\", \"Depending on the memory equipment (2 or 4 GB GDDR5)\"")
_a51 = page(*FPSB_460, "RX 460 column: \"Shading Units\" \"896\", \"Boost Clock\" \"1200 MHz\", \"Memory Clock\" \"1750 MHz 7 Gbps "
            "effective\", \"Memory Bus\" \"128 bit\", \"Bandwidth\" \"112.0 GB/s\"")
for gb in (4, 2):
    card(f"rx-460-{gb}gb", f"Radeon RX 460 {gb}GB", "AMD", ["RX 460", "460", "RX460", "Radeon RX 460", f"RX 460 {gb}GB"],
         gb, _nbc460, 112, "derived: 7 Gbps x 128-bit = 112 GB/s (" + _a51 + ")",
         fp32=(r1(896 * 1200 * 2 / 1e6), f"derived: 896 stream processors x boost 1200 MHz x 2 FLOP/clk ({_nbc460})"),
         note=POL11 + f" Both memory sizes print one name (RADV: \"AMD Radeon RX 460 Graphics\"): name the size (`RX 460 {gb}GB`).")

# Fiji (GCN 3) on 4 GB of first-generation HBM at 512 GB/s. RADV prints "AMD Radeon R9 Fury Series"
# for the Fury X, the Fury and the Nano alike, so that name is ambiguous among the three.
T3D_FURYX = ("Technic3D, AMD Radeon R9 Fury X wird offiziell (launch report)",
             "https://www.technic3d.com/news/hardware/grafikkarten/10635-amd-radeon-r9-fury-x-wird-offiziell.htm")
HH_FURY = ("HotHardware, AMD Radeon Fury and Fury X specs leaked (pre-launch table)",
           "https://hothardware.com/news/amd-radeon-fury-and-fury-x-specs-leaked-hbm-powered-killer-graphics-on-the-way")
G3D_FURYX = ("Geeks3D, AMD Radeon R9 Fury X detailed specs (launch report)",
             "https://glslhacker.geeks3d.com/20150618/amd-radeon-r9-fury-x-detailed-specs-slides-hbm-no-hdmi-2-0-support")
HWLX_NANO = ("Hardwareluxx, Radeon R9 Nano vermutlich mit vielen Gemeinsamkeiten mit Fury X (AMD's slide, pre-launch report)",
             "https://hardwareluxx.de/index.php/news/hardware/grafikkarten/36409-radeon-r9-nano-vermutlich-viele-gemeinsamkeiten-mit-fury-x.html")
FIJI = ("Fiji (GCN 3): no matrix units and no fast FP16, so the FP32 rate is the prefill proxy. RADV prints \"AMD Radeon R9 "
        "Fury Series\" for the Fury X, the Fury and the Nano: name the card (`R9 Fury X`, `R9 Fury`, `R9 Nano`).")
_fx = page(*T3D_FURYX, "\"Den Chiptakt gibt AMD mit 1.050 MHz an\", \"High-Bandwidth-Memory (HBM) ... taktet mit 500 MHz und ist über ein "
           "4.096 Bit breites Speicherinterface angebunden, wodurch eine Speicherbandbreite von 512 GByte pro Sekunde erreicht wird\", "
           "\"Die insgesamt 4.096 Shadereinheiten\", \"eine Rechenleistung von 8,6 TFLOPs\"")
_hh = ("table: Fury X | Fury: \"Stream Processors 4096 ... 3584\", \"GPU Frequency ... 1050Mhz 1000Mhz\", \"Memory Interface 4096bit\", "
       "\"Memory Bandwidth 512GB/s\", \"Performance (SPFP) ... 8.6 TFLOPS 7.2 TFLOPS\" (a table published before launch)")
card("r9-fury-x", "Radeon R9 Fury X 4GB", "AMD", ["R9 Fury X", "Fury X", "Radeon R9 Fury X", "R9 Fury Series", "Radeon R9 Fury Series"],
     4, page(*G3D_FURYX, "\"The Fiji GPU features an ultra wide memory interface of 4096-bit! This first generation of HBM memory is "
                                  "limited to 4GB.\""),
     512, _fx, fp32=(8.6, _fx), note=FIJI)
card("r9-fury", "Radeon R9 Fury 4GB", "AMD", ["R9 Fury", "Fury", "Radeon R9 Fury", "R9 Fury Series", "Radeon R9 Fury Series"],
     4, page(*HWLX_NANO, "\"der 4 GB große High Bandwith Memory\" of the Fiji cards, \"512 GB/s ... auf Augenhöhe mit der größeren Radeon R9 Fury "
                         "oder gar Radeon R9 Fury X\""),
     512, page(*HH_FURY, _hh), fp32=(7.2, page(*HH_FURY, _hh)), note=FIJI + " Fiji with 56 of 64 CUs.")
_nano = page(*HWLX_NANO, "\"über die vollen 4.096 Streamprozessoren verfügen. Auch der 4 GB große High Bandwith Memory\", \"Taktraten von 500 MHz "
             "sowie dem 4.096 Bit breiten Interface ... Speicherbandbreite von satten 512 GB/s\", \"soll die Nano mit maximal 1.000 MHz "
             "arbeiten\", \"bis zu 8,19 TFLOPs\"")
card("r9-nano", "Radeon R9 Nano 4GB", "AMD", ["R9 Nano", "Radeon R9 Nano", "R9 Fury Series", "Radeon R9 Fury Series"],
     4, _nano, 512, _nano, fp32=(8.2, _nano),
     note=FIJI + " The full Fiji at up to 1000 MHz in 175 W: it seldom holds that clock, so the FP32 figure is an upper bound.")

# Hawaii and Grenada (GCN 2), 512-bit GDDR5. RADV prints "AMD Radeon R9 390 Series" for the 390
# and the 390X (ambiguous between them), and "AMD Radeon R9 200 Series" for the 290 and 290X but
# also for R9 270 (Pitcairn) and R9 285 (Tonga) boards (amdgpu.ids 6810, 6811, 6938, 6939), so that
# name is not an alias: a user names the card.
A51_390 = ("amdarea51.de, AMD Radeon R9 390 Technische Daten (database copy)", "http://amdarea51.de/vgas/vga_formular.php?ID=343")
GG_290 = ("GameGPU, Radeon R9 290 (German page, specification table)", "https://de.gamegpu.com/radeon-r-2xx-serie/Radeon-R9-290")
GG_390X = ("GameGPU, Radeon R9 390X (German page)", "https://de.gamegpu.com/radeon-r-3xx-serie/Radeon-R9-390x")
IE_390X = ("industry-electronics.de, retail listing of an AMD Radeon R9 390X card (retail listing)",
           "https://industry-electronics.de/allnet/all-brick-0046-brickrknowledge-transistor-mos-2n7002-druckansicht-178136.htm")
CB_290 = ("ComputerBase, Finale Spezifikationen der AMD Radeon R9 290 und 290X (AMD's slide)",
          "https://computerbase.de/2013-10/finale-spezifikationen-der-amd-radeon-r9-290-und-290x")
HAWAII = "Hawaii (GCN 2): no matrix units and no fast FP16, so the FP32 rate is the prefill proxy."
_a390 = page(*A51_390, "\"Stream-Prozessoren: 2560\", \"GPU-Takt: 1000 MHz\", \"Speicherbus: 512 Bit GDDR5\", \"Speichergröße: 8196 MByte\", "
             "\"Speichertakt: 1500 MHz (6000 MHz eff.)\", \"Rechenleistung SPs: 5120 GFlops\", \"Datendurchsatz: 384 GByte/s\"")
_390s = " RADV prints \"AMD Radeon R9 390 Series\" for the 390 and the 390X: name the card (`R9 390`, `R9 390X`)."
_same = ("; the 390X's memory is the same 6 Gbps on 512 bits: " + page(*GG_390X, "\"der im R9 390X mit 1500 (6000) MHz getaktet ist\""))
card("r9-390", "Radeon R9 390 8GB", "AMD", ["R9 390", "390", "Radeon R9 390", "R9 390 Series", "Radeon R9 390 Series"],
     8, unread(_a390) + _same, 384, unread(_a390) + _same, fp32=(5.1, unread(_a390) + _same), note=HAWAII + _390s)
_ie = page(*IE_390X, "\"Grafik-Engine\" \"AMD Radeon R9 390X\", \"Streamprozessoren\" \"2816\", \"Core Clock\" \"1050 MHz\", \"Technologie\" "
           "\"GDDR5 SDRAM\", \"Effektive Taktrate\" \"6 GHz\", \"Busbreite\" \"512-bit\", \"Grösse\" \"8 GB\"")
_gg = page(*GG_390X, "\"2816 Shader-ALUs (Stream-Prozessoren)\", \"Frequenzgrenze GPU von 1000 auf 1050 MHz erhöht\", \"der im R9 390X mit "
           "1500 (6000) MHz getaktet ist\"")
card("r9-390x", "Radeon R9 390X 8GB", "AMD", ["R9 390X", "390X", "Radeon R9 390X", "R9 390 Series", "Radeon R9 390 Series"],
     8, _ie, 384, "derived: 6 Gbps x 512-bit = 384 GB/s (" + unread(_gg) + "; " + _ie + ")",
     fp32=(r1(2816 * 1050 * 2 / 1e6), f"derived: 2816 stream processors x 1050 MHz x 2 FLOP/clk ({_gg})"), note=HAWAII + _390s)
_a290 = page(*GG_290, "\"Kernfrequenz | 947\", \"Speicherfrequenz (DDR) | 5000\", \"Bus- und Speichertyp | GDDR5 512-Bit\", "
             "\"Bandbreite (Gb/s) | 320\", \"Einheitliche Shader-Blöcke | 2560\", \"Speicherkapazität | 4096\"")
_200s = (" RADV prints \"AMD Radeon R9 200 Series\" for it, for the 290X and for R9 270 and R9 285 boards, so that name stays "
         "unknown: name the card.")
card("r9-290", "Radeon R9 290 4GB", "AMD", ["R9 290", "290", "Radeon R9 290"], 4, _a290, 320, _a290,
     fp32=(r1(2560 * 947 * 2 / 1e6), f"derived: 2560 stream processors x 947 MHz x 2 FLOP/clk ({_a290})"),
     note=HAWAII + _200s)
_cb290 = page(*CB_290, "\"die Radeon R9 290X als Flaggschiff mit 2.816 Shadern ausgestattet und mit einem Chiptakt von maximal 1.000 MHz\", "
              "\"Beim Speicherinterface kommt die bereits vermutete 512 Bit breite Variante zum Einsatz, an der jeweils 4 GByte VRAM mit "
              "effektiven 5 GHz angebunden werden\", \"Die angegebenen TFLOPS von 5,6\"")
card("r9-290x", "Radeon R9 290X 4GB", "AMD", ["R9 290X", "290X", "Radeon R9 290X", "R9 290X 4GB"], 4, _cb290,
     320, "derived: 5 Gbps x 512-bit = 320 GB/s (" + _cb290 + ")", fp32=(5.6, _cb290),
     note=HAWAII + _200s + " AMD's 4 GB card; 8 GB partner boards are not catalogued.")

# Radeon Pro W5700 (RDNA1) and W6600 (RDNA2).
CD_W5700 = ("Coelacanth's Dream, Radeon Pro W5700X が発表される (Navi 10 products table)",
            "https://www.coelacanth-dream.com/posts/2019/12/12/radeon-pro-w5700-x/")
_w5700 = page(*CD_W5700, "column \"W5700\": \"CUs 36\", \"SPs 2304\", \"Boost Clock (MHz) 1929\", \"Max Memory Size (GB) 8\", \"Memory "
              "Interface (bit) 256\", \"Memory Speed (Gbps) 14\", \"Memory Bandwidth (GB/s) 448\"")
card("radeon-pro-w5700", "Radeon Pro W5700 8GB", "AMD", ["Radeon Pro W5700", "Pro W5700", "W5700", "AMD Radeon Pro W5700"],
     8, _w5700, 448, _w5700, fp32=(r1(2304 * 1929 * 2 / 1e6), f"derived: 2304 stream processors x boost 1929 MHz x 2 FLOP/clk ({_w5700})"),
     note=RDNA1 + " Not the Mac Pro's W5700X (40 CUs, 16 GB; not catalogued).")
HWLX_W6600 = ("Hardwareluxx, AMD packt Big Navi in Radeon-Pro-Karten (launch report)",
              "https://www.hardwareluxx.de/index.php/news/hardware/grafikkarten/56343-amd-packt-big-navi-in-radeon-pro-karten.html")
_w6600 = page(*HWLX_W6600, "Radeon Pro W6600: \"Bei 28 Compute Units kommen wir auf 1.792 Shadereinheiten. Hinzu kommen 8 GB an Grafikspeicher, "
              "die an einem 128 Bit breiten Speicherinterface auf 224 GB/s kommen\"")
card("radeon-pro-w6600", "Radeon PRO W6600 8GB", "AMD", ["Radeon PRO W6600", "PRO W6600", "W6600", "AMD Radeon Pro W6600"],
     8, _w6600, 224, _w6600,
     note=RDNA2 + " Its boost clock was not read on a citable page, so no FP32 rate is catalogued: the prefill ceiling is unknown.")

# Intel Data Center GPU Max 1550 (Ponte Vecchio, Xe-HPC): two stacks on 128 GB of HBM2e.
GKL_PVC = ("Glenn K. Lockwood, Ponte Vecchio (notes citing Intel ARK for the Max 1550)", "https://glennklockwood.com/garden/processors/pvc")
GT_PVC = ("Geektopia, Intel no lanzará la Max 1350 (launch report via Tom's Hardware)",
          "https://geektopia.es/es/technology/2023/04/11/noticias/intel-no-lanzara-la-max-1350-para-centros-de-datos-y-se-centrara-en-una-nueva-max-1450.html")
_gkl = page(*GKL_PVC, "\"Each Intel Data Center GPU Max 1550 has: 2 Xe Stacks, 128 Xe Cores (64 per Stack)\", \"128 GB HBM2e\", \"3.2768 TB/s\"")
card("intel-max-1550", "Data Center GPU Max 1550 128GB", "Intel",
     ["Data Center GPU Max 1550", "GPU Max 1550", "Max 1550", "Intel Data Center GPU Max 1550", "Ponte Vecchio"],
     128, unread(_gkl) + "; " + page(*GT_PVC, "\"la Max 1550 de 128 núcleos Xe (16 384 sombreadores) hasta a 1.6 GHz, con 128 GB de VRAM con 3.3 TB/s "
                                     "de ancho de banda y 600 W de TDP\""),
     3276.8, _gkl,
     note="Xe-HPC with XMX matrix engines and HBM2e. The card is two stacks: with Level Zero's default flat hierarchy SYCL lists "
          "each stack as its own device (64 GB, half the bandwidth), which this entry does not describe. Intel's peak matrix rates "
          "were not read on a citable page (the page read gives measured GEMM rates only): the prefill ceiling is unknown.")

# Moore Threads (llama.cpp's MUSA backend): the MTT S80 (desktop) and MTT S4000 (data center).
TOMSHW_S80 = ("Tom's Hardware Italia, la rivale cinese della RTX 3060 Ti (MTT S80 launch report)",
              "https://www.tomshw.it/hardware/la-rivale-cinese-della-rtx-3060-ti-e-gia-in-vendita-a-238-euro/")
TPC_S4000 = ("TweakPC, Moore Threads MTT S4000 GPU aus China mit 25 TFLOPS (launch report)",
             "https://tweakpc.de/news/49715/moore-threads-leistungsstarke-mtt-s4000-gpu-aus-china-mit-25-tflops")
MUSA = ("Moore Threads MUSA GPU: tensor cores whose matrix rates are not published per card, so the FP32 rate stands in and the "
        "prefill ceiling is conservative.")
_s80 = page(*TOMSHW_S80, "\"4.096 stream processor, 128 tensor core\", \"la frequenza operativa è di 1.80GHz\", \"16GB di memorie GDDR6 con una "
            "velocità di trasferimento di 14GT/s, che si collegano alla GPU attraverso un’interfaccia a 256 bit per una larghezza di banda "
            "totale di 448GB/s\", \"sino a 14,4 FP32 TFLOP\"")
card("mtt-s80", "MTT S80 16GB", "Moore Threads", ["MTT S80", "S80", "Moore Threads MTT S80"], 16, _s80, 448, _s80, fp32=(14.4, _s80), note=MUSA)
_s4000 = page(*TPC_S4000, "\"Mit einer theoretischen Rechenleistung von 25 TFLOPS (FP32)\", \"GDDR6-Standard mit 48 Gigabyte für den "
              "Grafikspeicher, welcher mit einem 384-Bit-Interface angebunden wird und eine Speicherbandbreite von 768 GB/s bietet\"")
card("mtt-s4000", "MTT S4000 48GB", "Moore Threads", ["MTT S4000", "S4000", "Moore Threads MTT S4000"], 48, _s4000, 768, _s4000,
     fp32=(25, _s4000), note=MUSA)

# AMD Radeon RX 9070 GRE: Navi 48 cut to 48 CUs, 12 GB on a 192-bit bus (432 GB/s: 18 Gbps).
CPT_9070GRE = ("cputronic.com, AMD Radeon RX 9070 GRE (database copy)", "https://cputronic.com/de/gpu/amd-radeon-rx-9070-gre")
_svet_gre = page(*SVET_9070, "Radeon RX 9070 GRE column (a table published before launch): \"Počet CU\" \"48\", \"Počet stream "
                 "procesorů\" \"3072\", \"Boost frekvence\" \"<2,79 GHz\", \"Paměti\" \"12 GB GDDR6\", \"Sběrnice\" \"192-bit\", "
                 "\"Propustnost\" \"432 GB/s\"")
_cpt_gre = page(*CPT_9070GRE, "\"Boost-Takt\" \"2790 MHz\", \"Einheiten berechnen\" \"48\", \"Speichergröße\" \"12GB\", "
                "\"Speichertyp\" \"GDDR6\"")
card("rx-9070-gre", "Radeon RX 9070 GRE 12GB", "AMD",
     ["RX 9070 GRE", "9070 GRE", "RX9070GRE", "Radeon RX 9070 GRE", "AMD Radeon RX 9070 GRE"],
     12, unread(_svet_gre) + "; " + _cpt_gre, 432, _svet_gre,
     bf16=(r1(48 * 2790 * 512 / 1e6), "derived: CUs 48 x boost 2790 MHz x 512 FLOP/clk/CU (vector FP16, twice the dual-issue FP32 "
           "rate of 256 FLOP/clk/CU, as for the RX 9070) (" + unread(_svet_gre) + "; " + _cpt_gre + ")"),
     note=RDNA4 + " Not the RX 9070 (56 CUs, 16 GB, 640 GB/s; a separate entry). The memory figures are from a table "
          "published before launch and a database copy: AMD's own page was not read.")

# AMD Radeon RX 6300: an OEM-only Navi 24 card, 2 GB on a 32-bit bus. Its CU count is not settled
# (reports give 8, 10 or 12), so no FP32 rate is catalogued.
SVET_6300 = ("SvětHardware, Objevil se desktopový Radeon RX 6300 s 32W spotřebou a 32bitovými pamětmi (launch report)",
             "https://www.svethardware.cz/objevil-se-desktopovy-radeon-rx-6300-s-32w-spotrebou-a-32bitovymi-pametmi/59165")
TOMSIT_6300 = ("Tom's Hardware Italia, La RX 6300 arriva sul mercato dell'usato (specification table)",
               "https://www.tomshw.it/hardware/la-rx-6300-scheda-grafica-low-end-arriva-sul-mercato-dellusato/")
_6300 = page(*SVET_6300, "\"Jsou zde pouhé 2 GB paměti GDDR6 na 32bitové sběrnici, což znamená paměťovou propustnost jen 64 GB/s při "
             "taktu 2000 MHz\"")
_t6300 = page(*TOMSIT_6300, "RX 6300 column: \"VRAM Speed (Gb/s) 16\", \"VRAM 2GB GDDR6\", \"Ampiezza bus VRAM 32\", \"Banda (GB/s) 64\"")
card("rx-6300", "Radeon RX 6300 2GB", "AMD", ["RX 6300", "RX6300", "Radeon RX 6300", "AMD Radeon RX 6300"],
     2, unread(_6300) + "; " + _t6300, 64, unread(_6300) + "; " + _t6300,
     note=RDNA2 + " An OEM card; its CU count is not settled (8, 10 or 12 in the reports read), so no FP32 rate is catalogued: "
          "the prefill ceiling is unknown. Not the RX 6300M (a laptop part, not catalogued).")

# Intel Data Center GPU Max 1100: one Xe-HPC stack (56 Xe cores) on 48 GB of HBM2e, PCIe card.
TOPCPU_1100 = ("TopCPU.net, Intel Data Center GPU Max 1100 vs NVIDIA Tesla M4 (database copy)",
               "https://www.topcpu.net/en/gpu-c/data-center-gpu-max-1100-vs-tesla-m4")
_t1100 = page(*TOPCPU_1100, "Max 1100 column: \"Memory Size\" \"48GB\", \"Memory Type\" \"HBM2e\", \"Memory Bus\" \"8192bit\", "
              "\"Memory Clock\" \"600 MHz\", \"Bandwidth\" \"1229GB/s\"")
card("intel-max-1100", "Data Center GPU Max 1100 48GB", "Intel",
     ["Data Center GPU Max 1100", "GPU Max 1100", "Max 1100", "Intel Data Center GPU Max 1100"],
     48, unread(page(*GT_PVC, "\"la Max 1100 (56 núcleos Xe o 7168 sombreadores, 48 GB de VRAM y 300 W de TDP)\"")) + "; " + _t1100,
     1228.8, "derived: 8192-bit HBM2e at 600 MHz double data rate (1.2 Gbps) = 1228.8 GB/s, which the page rounds to 1229 (" + _t1100 + ")",
     note="Xe-HPC with XMX matrix engines and HBM2e, a single stack (the Max 1550 is two). The bandwidth is from a database "
          "copy, Intel's page was not read; Intel's peak matrix rates were not read on a citable page: the prefill ceiling is "
          "unknown.")

# (end of the ninth pass)

# --- tenth pass: the Pascal TITAN X -------------------------------------------------------------
# NVIDIA named the 2016 GP102 card "NVIDIA TITAN X" (drivers print "NVIDIA TITAN X (Pascal)"), the
# 2015 Maxwell one "GeForce GTX TITAN X": a bare "TITAN X" is the Pascal card.
GN_TXP = ("GamersNexus, NVIDIA GP102 Titan X specs announced", "https://gamersnexus.net/news-pc/2523-nvidia-gp102-titan-x-specs-announced")
G360_TXP = ("Gadgets 360, Nvidia unveils new Pascal-based Titan X graphics card",
            "https://gadgets360.com/laptops/news/nvidia-unveils-new-pascal-based-titan-x-graphics-card-priced-at-1200-864091")
gpu("titan-x-pascal", "TITAN X (Pascal)", "NVIDIA", ["NVIDIA TITAN X (Pascal)", "Titan X Pascal", "TITAN X", "NVIDIA TITAN X"], 12,
    rd(G360_TXP, "\"It will also have 12GB of high-speed GDDR5X memory on a 384-bit wide bus resulting in 480GBps of memory bandwidth\""),
    480, rd(G360_TXP, "\"12GB of high-speed GDDR5X memory on a 384-bit wide bus resulting in 480GBps of memory bandwidth\"") + "; "
    + rd(GN_TXP, "\"the card leverages 12GB of GDDR5X memory at 480GB/s memory bandwidth\""),
    fp32=11.0, fp32_src=rd(GN_TXP, "\"GP102 is a 12B transistor chip with 11 TFLOPs of FP32 COMPUTE performance, 3584 CUDA cores clocked at 1.53GHz\"")
    + " (3584 x 1531 MHz x 2 = 10.97)",
    note=PASCAL_NOTE)

# --- eleventh pass: NVIDIA workstation, older and laptop parts ---------------------------------
# Issue #30: NVIDIA workstation, older desktop and laptop parts llama.cpp users run that the catalog
# lacked. Every figure quotes the page it was read on ("[read]"); a database copy, a pre-launch
# listing or a launch report is labelled so. Turing laptop parts (RTX 20, GTX 16, Quadro RTX) print
# the desktop card's name in CUDA's and Vulkan's device lines (NVIDIA named them alike), so their
# entries answer only to names that say "Laptop" or "Mobile": a pasted line keeps giving the
# desktop card, whose figures bound the laptop part's from above.
TURING_LAPTOP = (" NVIDIA gave the Turing laptop part the desktop card's name: a device line prints the desktop name, "
                 "which gives the desktop entry (an upper bound); name the laptop part (`{n} Laptop GPU`).")

# Pascal and Maxwell Quadro desktop cards.
SYS_P2200 = ("sysrqmts.com, NVIDIA Quadro P2000 vs NVIDIA Quadro P2200 (database copy)",
             "https://sysrqmts.com/ko/gpus/compare/nvidia-quadro-p2000-vs-nvidia-quadro-p2200")
_p2200 = page(*SYS_P2200, "Quadro P2200 column: \"1251 MHz 10 Gbps effective\", \"5 GB\", \"GDDR5X\", \"160 bit\", \"200.2 GB/s\", "
              "\"1280\" shading units, boost \"1493 MHz\", FP32 \"3.822 TFLOPS\"")
card("quadro-p2200", "Quadro P2200", "NVIDIA", ["P2200", "NVIDIA Quadro P2200"],
     5, _p2200, 200, "derived: 10 Gbps GDDR5X x 160-bit = 200 GB/s (" + _p2200 + ")",
     fp32=(r1(1280 * 1493 * 2 / 1e6), "derived: 1280 CUDA cores x boost 1493 MHz x 2 FLOP/clk (" + _p2200 + ")"),
     note=QP + " Not the Quadro P2000 (GDDR5, 140 GB/s; a separate entry).")
CAD_M4000 = ("CADplace, Digging into the Quadro M4000 (review)", "https://www.cadplace.co.uk/Hardware/Digging-into-the-Quadro-M40002")
FPSB_M4000 = ("fpsbench.com, NVIDIA Quadro M4000 vs NVIDIA Tesla T4 (database copy)",
              "https://fpsbench.com/compare/gpu/nvidia-quadro-m4000-vs-nvidia-tesla-t4")
_cad = page(*CAD_M4000, "\"1664 ... the number of CUDA cores on a Quadro M4000\", \"The K4200's 4GB of GDDR5 memory has been increased to "
            "8GB\", \"The memory has a 256 bit interface and a 192 GBps bandwidth\"")
_fm4 = page(*FPSB_M4000, "Quadro M4000 column: \"Shading Units\" \"1,664\", \"GPU Clock\" \"773 MHz\", \"Memory Clock\" \"1502 MHz 6 Gbps "
            "effective\", \"Memory Bus\" \"256 bit\", \"Bandwidth\" \"192.3 GB/s\", \"FP32 (TFLOPS)\" \"2.573 TFLOPS\"")
card("quadro-m4000", "Quadro M4000", "NVIDIA", ["M4000", "NVIDIA Quadro M4000"],
     8, _cad, 192, unread(_cad) + "; " + _fm4,
     fp32=(r1(1664 * 773 * 2 / 1e6), "derived: 1664 CUDA cores x 773 MHz x 2 FLOP/clk (" + _fm4 + ")"),
     note=MAXWELL + " GM204 (the GTX 970/980's die); NVIDIA gives it no boost clock, so the FP32 figure is at 773 MHz.")
ADB_M5000 = ("cpu-gpu.alldbin.com, Quadro M5000 and Maxwell GPU Surface Book comparison (database copy)",
             "https://cpu-gpu.alldbin.com/graphics-card-comparison/Quadro-M5000-and-Maxwell-GPU-Surface-Book-940M-GDDR5-comparison.html")
_m5000 = page(*ADB_M5000, "Quadro M5000: \"Boost clock speed\" \"1038 MHz\", \"Floating-point performance\" \"4,252 gflops\", "
              "\"Pipelines / CUDA cores\" \"2048\", \"Maximum RAM amount\" \"8 GB\", \"Memory bus width\" \"256 Bit\", "
              "\"Memory clock speed\" \"6612 MHz\", \"Memory bandwidth\" \"Up to 211 GB/s\"")
card("quadro-m5000", "Quadro M5000", "NVIDIA", ["M5000", "NVIDIA Quadro M5000"],
     8, _m5000, 211.6, "derived: 6.612 Gbps GDDR5 x 256-bit = 211.6 GB/s (" + _m5000 + ")",
     fp32=(r1(2048 * 1038 * 2 / 1e6), "derived: 2048 CUDA cores x boost 1038 MHz x 2 FLOP/clk (" + _m5000 + ")"),
     note=MAXWELL + " GM204 with all 2048 cores. Not the Quadro M5000M laptop part (1536 cores, 160 GB/s; not catalogued).")
ADB_K2200 = ("cpu-gpu.alldbin.com, Quadro K2200 and Iris Xe Graphics 96EU comparison (database copy)",
             "https://cpu-gpu.alldbin.com/graphics-card-comparison/Quadro-K2200-and-Iris-Xe-Graphics-96EU-comparison.html")
_k2200 = page(*ADB_K2200, "Quadro K2200: \"Architecture\" \"Maxwell\", \"GPU code name\" \"GM107\", \"Boost clock speed\" \"1124 MHz\", "
              "\"Floating-point performance\" \"1,439 gflops\", \"Pipelines / CUDA cores\" \"640\", \"Memory type\" \"GDDR5\", "
              "\"Maximum RAM amount\" \"4 GB\", \"Memory bus width\" \"128 Bit\", \"Memory clock speed\" \"5012 MHz\", "
              "\"Memory bandwidth\" \"80.19 GB/s\"")
card("quadro-k2200", "Quadro K2200", "NVIDIA", ["K2200", "NVIDIA Quadro K2200"],
     4, _k2200, 80.2, _k2200,
     fp32=(r1(640 * 1124 * 2 / 1e6), "derived: 640 CUDA cores x boost 1124 MHz x 2 FLOP/clk (" + _k2200 + ")"),
     note=MAXWELL + " First-generation Maxwell (GM107, compute capability 5.0) despite its Kepler-era K name. Not the Quadro "
          "K2200M laptop part (2 GB; not catalogued).")

# GeForce GTX 960 (GM206): sold with 2 GB and 4 GB under one printed name, so the bare name is
# ambiguous until the size is given, as for the RX 580.
G3T_960 = ("glob3trotters.com, NVIDIA announces the GeForce GTX 960 (launch report)", "http://glob3trotters.com/nvidia-announces-the-geforce-gtx-960")
HWDB_960 = ("hardwaredb.net, NVIDIA GeForce GTX 960 (database copy)", "https://www.hardwaredb.net/geforce-gtx-960-benchmark")
FPSB_960 = ("fpsbench.com, NVIDIA GeForce GTX 960 vs NVIDIA P106-100 (database copy)",
            "https://fpsbench.com/compare/gpu/nvidia-geforce-gtx-960-vs-nvidia-p106-100")
_g960 = page(*G3T_960, "\"a narrower 128-bit wide memory bus, translating to just four memory chips on card to achieve its 2 GB\", "
             "\"The GeForce GTX 960 features 1,024 CUDA cores\", \"The core is clocked at 1127 MHz, with 1178 MHz GPU Boost, and 7.00 GHz "
             "memory (GDDR5-effective)\"")
for gb in (2, 4):
    mem_q = (unread(_g960) + "; " + page(*FPSB_960, "GTX 960 column: \"Memory Size\" \"2 GB\", \"Memory Type\" \"GDDR5\", "
                                          "\"Memory Bus\" \"128 bit\", \"Bandwidth\" \"112.2 GB/s\"")) if gb == 2 else page(*HWDB_960, "\"The GeForce GTX 960 has 4 GiB of GDDR5 memory, with a total memory bandwidth of "
                                       "109 GB/s. The memory bus has a width of 128 bits.\"")
    bw_q = ("derived: 7 Gbps x 128-bit = 112 GB/s (" + _g960 + ")") if gb == 2 else \
        ("derived: NVIDIA's 7 Gbps x 128-bit = 112 GB/s, the upper bound (" + unread(_g960) + "; the database copy gives 109 GB/s "
         "for the 4 GB card: " + page(*HWDB_960, "\"4 GiB of GDDR5 memory, with a total memory bandwidth of 109 GB/s\"") + ")")
    card(f"gtx-960-{gb}gb", f"GeForce GTX 960 {gb}GB", "NVIDIA",
         ["GTX 960", "960", "NVIDIA GeForce GTX 960", f"GTX 960 {gb}GB", f"GeForce GTX 960 {gb}GB"],
         gb, mem_q, 112, bw_q,
         fp32=(r1(1024 * 1178 * 2 / 1e6), "derived: 1024 CUDA cores x boost 1178 MHz x 2 FLOP/clk (" + _g960 + ")"),
         note=MAXWELL + f" Both memory sizes print one name (\"NVIDIA GeForce GTX 960\"): name the size (`GTX 960 {gb}GB`).")

# GeForce RTX 20 laptop parts (Turing, 2019). NVIDIA's launch table gives the CUDA cores, clocks and
# 14 Gbps memory of all three; the memory size is the desktop card's.
TQ_L20 = ("Techquila, Nvidia GeForce RTX 20 mobile specifications (NVIDIA's launch table)", "https://www.techquila.co.in/nvidia-geforce-rtx-mobile/")
TR_L20 = ("Tech-Review.net, NVIDIA introduced a mobile GeForce RTX (launch report)", "http://tech-review.net/news/nvidia_introduced_a_mobile_geforce_rtx/2019-01-07-419")
GLR_L20 = ("Gaming Laptop Report, GeForce RTX for Laptops Specifications Appear Online (CJSCOPE's pre-launch listing)",
           "https://www.gaminglaptopreport.com/news/geforce-rtx-for-laptops-specifications-appear-online/?share=google-plus-1")
NBC_2060L = ("Notebookcheck, GeForce RTX 2060 Mobile vs GeForce RTX 2080 Super Max-Q vs GeForce RTX 2060 Super (Desktop)",
             "https://www.notebookcheck.net/GeForce-RTX-2060-Mobile-vs-GeForce-RTX-2080-Super-Max-Q-vs-GeForce-RTX-2060-Super-Desktop_9581_10305_9893.247598.0.html")
SDP_2060L = ("gpu.spicedreamphone.com, NVIDIA GeForce RTX 2060 Mobile Refresh (database copy)",
             "https://gpu.spicedreamphone.com/en/gpu/nvidia/geforce-rtx-2060-mobile-refresh")
_tq = ("\"all 3 GPUs sport the exact same number of CUDA cores as their desktop equivalents. This means that the mobile RTX 2060 has "
       "1920 CUDA cores, the RTX 2070 2304 & the RTX 2080 tops out with 2944 CUDA cores\", \"The memory speed also remains the same "
       "across all three cards at 14GB/s\"")
_tr_same = page(*TR_L20, "\"All mobile NVIDIA graphics cards of the new generation are built on the same graphics processors and have the "
                "same amount of memory as their desktop versions\"")
_sdp = page(*SDP_2060L, "\"Memory Size\" \"6 GB\", \"Memory Type\" \"GDDR6\", \"Memory Bus\" \"192 bit\", \"Shading Units\" \"1920\", "
            "\"SM Count\" \"30\" (the 2020 refresh, \"11 Gbps effective\", \"264.0 GB/s\")")
_nbc2060 = page(*NBC_2060L, "\"In 2020 Nvidia also released a refreshed version with the same name ... the maximum TGP was increased to "
                "115 Watt and therefore the GPU can clock higher (1005 - 1560 MHz). The memory speed however was decreased to 11 Gbps\"")
_bf2060 = r1(30 * 1560 * 512 / 1e6)
gpu("rtx-2060-laptop", "GeForce RTX 2060 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 2060 Laptop GPU"), 6,
    unread(_tr_same) + "; " + _sdp,
    336, "derived: 14 Gbps x 192-bit = 336 GB/s, the 2019 part's memory (" + unread(page(*TQ_L20, _tq)) + "; " + _sdp + ")",
    bf16=_bf2060, bf16_src=TC512.format(sm=30, mhz=1560, wp=TU_WP, pages=unread(_sdp) + "; " + unread(_nbc2060))
    + " (the 2020 refresh's clock; NVIDIA's 2019 launch boost was 1200 MHz: " + unread(page(*TQ_L20, "RTX 2060 LAPTOP \"BOOST CLOCK (MHz)\" \"1200\"")) + ") [read]",
    note=LAPTOP + " The 2019 part runs 14 Gbps memory at up to 1200 MHz; the 2020 refresh, under the same name, 11 Gbps (264 GB/s) "
         "at up to 1560 MHz: the entry takes the higher of each, an upper bound for both." + TURING_LAPTOP.format(n="RTX 2060"))
_glr = "table: \"RTX 2070 MXM\": \"CUDA cores\" \"2304\", \"Memory bus\" \"256-bit\", \"Memory amount\" \"8 GB GDDR6\", \"Memory frequency\" \"14 000 MHz\""
_bf2070 = r1(36 * 1440 * 512 / 1e6)
gpu("rtx-2070-laptop", "GeForce RTX 2070 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 2070 Laptop GPU"), 8,
    unread(_tr_same) + "; " + page(*GLR_L20, _glr),
    448, "derived: 14 Gbps x 256-bit = 448 GB/s (" + unread(page(*TQ_L20, _tq)) + "; " + page(*GLR_L20, _glr) + ")",
    bf16=_bf2070, bf16_src=TC512.format(sm=36, mhz=1440, wp=TU_WP, pages=page(*TQ_L20, _tq + ", RTX 2070 LAPTOP \"BOOST CLOCK (MHz)\" "
                                                                               "\"1185-1440\" (2304 cores at 64 per SM: 36 SMs)")),
    note=LAPTOP + " The Max-Q version (lower clocks and power) prints its own name and is not catalogued." + TURING_LAPTOP.format(n="RTX 2070"))
_tr2080 = page(*TR_L20, "\"the older GeForce RTX 2080 has 2944 CUDA cores and 8 GB of GDDR6 memory with 256-bit bus. The GPU clock "
               "frequencies of the standard mobile version are 1380/1590 MHz, while those of the Max-Q version are lowered to 735/1095 MHz. "
               "The effective memory frequency is 14 and 12 GHz respectively\"")
GD_2080M = ("Game-Debate, GeForce RTX 2080 Mobile", "https://game-debate.com/hardware/index.php?gid=4088&graphics=GeForce%20RTX%202080%20Mobile")
_gd2080 = page(*GD_2080M, "\"The GPU accesses an 8GB frame buffer of first-gen GDDR6 memory through a 256-bit memory interface\"")
_bf2080 = r1(46 * 1590 * 512 / 1e6)
gpu("rtx-2080-laptop", "GeForce RTX 2080 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 2080 Laptop GPU"), 8,
    unread(_tr2080) + "; " + _gd2080,
    448, "derived: 14 Gbps x 256-bit = 448 GB/s (" + _tr2080 + ")",
    bf16=_bf2080, bf16_src=TC512.format(sm=46, mhz=1590, wp=TU_WP, pages=unread(_tr2080) + " (2944 cores at 64 per SM: 46 SMs)") + " [read]",
    note=LAPTOP + " Not the RTX 2080 Max-Q (a separate entry)." + TURING_LAPTOP.format(n="RTX 2080"))
_bf2080q = r1(46 * 1095 * 512 / 1e6)
gpu("rtx-2080-max-q", "GeForce RTX 2080 with Max-Q Design", "NVIDIA",
    ["RTX 2080 with Max-Q Design", "RTX 2080 Max-Q", "2080 Max-Q", "GeForce RTX 2080 Max-Q", "NVIDIA GeForce RTX 2080 with Max-Q Design"],
    8, unread(_tr2080) + "; the RTX 2080 laptop part's memory: " + _gd2080, 384, "derived: 12 Gbps x 256-bit = 384 GB/s (" + _tr2080 + ")",
    bf16=_bf2080q, bf16_src=TC512.format(sm=46, mhz=1095, wp=TU_WP, pages=unread(_tr2080) + " (2944 cores at 64 per SM: 46 SMs)") + " [read]",
    note=LAPTOP + " The low-power RTX 2080 laptop part (80 W), which NVIDIA's driver names \"GeForce RTX 2080 with Max-Q Design\". "
         "The RTX 2080 SUPER Max-Q is another part and is not catalogued.")

# GeForce GTX 1660 Ti for laptops (TU116, no tensor cores).
HWLX_1660TL = ("Hardwareluxx, Notebook-GPUs: Technische Daten der GeForce GTX 1650 und GTX 1660 Ti (NVIDIA's datasheets)",
               "https://hardwareluxx.de/index.php/news/hardware/grafikkarten/49329-notebook-gpus-technische-daten-der-geforce-gtx-1650-und-gtx-1660-ti.html")
_hw1660 = page(*HWLX_1660TL, "\"Die mobile GeForce GTX 1660 Ti baut dabei auf der TU116-GPU auf, die wie im Desktop über 1.536 Shadereinheiten "
               "verfügt, sich jedoch mit einem Basis- und Boost-Takt von 1.140 bis 1.455 MHz respektive 1.335 bis 1.590 MHz ans Werk macht\", "
               "\"Auch im Notebook stehen 6 GB GDDR6-Videospeicher bereit, die über ein 192 Bit breites Interface angeschlossen werden und "
               "mit Taktraten von 1.500 MHz eine Bandbreite von rund 288 GB/s erreichen können\"")
gpu("gtx-1660-ti-laptop", "GeForce GTX 1660 Ti Laptop GPU", "NVIDIA",
    laptop_name("GeForce GTX 1660 Ti Laptop GPU") + ["1660 Ti Laptop", "1660 Ti Mobile"], 6, _hw1660,
    288, "derived: 12 Gbps (1500 MHz GDDR6) x 192-bit = 288 GB/s (" + _hw1660 + ")",
    fp32=r1(1536 * 1590 * 2 / 1e6), fp32_src="derived: 1536 CUDA cores x boost 1590 MHz x 2 FLOP/clk (" + _hw1660 + ")",
    note=T16 + " " + LAPTOP + TURING_LAPTOP.format(n="GTX 1660 Ti"))

# Quadro RTX 4000 for laptops (Turing TU104, workstation: FP16 with FP32 accumulate at full rate).
TOMS_QRTXM = ("Tom's Hardware, Nvidia's Mobile Quadro Family Gets Turing GPUs, Up To 16GB GDDR6 (NVIDIA's table)",
              "https://tomshardware.com/news/nvidia-mobile-quadro-rtx,39437.html")
SYS_QRTX4M = ("sysrqmts.com, NVIDIA Quadro RTX 4000 Mobile vs NVIDIA RTX A4500 Mobile (database copy)",
              "https://sysrqmts.com/it/gpus/compare/nvidia-quadro-rtx-4000-mobile-vs-nvidia-rtx-a4500-mobile")
_tq4 = page(*TOMS_QRTXM, "column \"RTX 4000\": \"CUDA Cores\" \"2,560\", \"Tensor Cores\" \"320\", \"Memory Capacity\" \"8GB GDDR6\", "
            "\"Memory Bus\" \"256-bit\"")
_sq4 = page(*SYS_QRTX4M, "Quadro RTX 4000 Mobile column: \"1750 MHz 14 Gbps effective\", \"8 GB\", \"GDDR6\", \"256 bit\", \"448.0 GB/s\", "
            "\"2560\" shading units, \"40\" SMs, boost \"1560 MHz\"")
card("quadro-rtx-4000-laptop", "Quadro RTX 4000 Laptop GPU", "NVIDIA",
     ["Quadro RTX 4000 Laptop GPU", "Quadro RTX 4000 Laptop", "Quadro RTX 4000 Mobile", "RTX 4000 Mobile"],
     8, unread(_tq4) + "; " + _sq4, 448, "derived: 14 Gbps x 256-bit = 448 GB/s (" + unread(_tq4) + "; " + _sq4 + ")",
     bf16=(r1(40 * 1560 * 1024 / 1e6), WS1024.format(sm=40, mhz=1560, wp=TU_WP, pages=_sq4)),
     note=LAPTOP + " NVIDIA's driver names the laptop part \"Quadro RTX 4000\" like the desktop card (2304 cores, 416 GB/s): a device "
          "line gives the desktop entry; name the laptop part (`Quadro RTX 4000 Mobile`). Turing has no BF16: the rate is FP16.")

# RTX A4000 Laptop GPU (Ampere GA104, workstation: FP16 with FP32 accumulate at full rate).
SYS_A4000L = ("sysrqmts.com, NVIDIA RTX A2000 Mobile vs NVIDIA RTX A4000 Mobile (database copy)",
              "https://sysrqmts.com/pl/gpus/compare/nvidia-rtx-a2000-mobile-vs-nvidia-rtx-a4000-mobile")
CT_A2000 = ("ClickThis, NVIDIA RTX A2000 for desktops (report comparing the laptop RTX A4000)",
            "https://clickthis.blog/pl/nvidia-rtx-a2000-dlya-nastolnyh-pk-nizkoprofilnaya-videokarta-ampere-dlya-rabochih-stanczij")
_sa4 = page(*SYS_A4000L, "RTX A4000 Mobile column: \"1500 MHz 12 Gbps effective\", \"8 GB\", \"GDDR6\", \"256 bit\", \"384.0 GB/s\", "
            "\"5120\" shading units, \"40\" SMs, boost \"1680 MHz\"")
card("rtx-a4000-laptop", "RTX A4000 Laptop GPU", "NVIDIA",
     ["RTX A4000 Laptop GPU", "RTX A4000 Laptop", "A4000 Laptop", "RTX A4000 Mobile", "A4000 Mobile", "NVIDIA RTX A4000 Laptop GPU"],
     8, unread(_sa4) + "; " + page(*CT_A2000, "\"Laptop A4000 i wersja desktopowa mają zupełnie inną specyfikację, z procesorem graficznym "
                                   "laptopa wyposażonym w 8 GB pamięci GDDR6\""),
     384, "derived: 12 Gbps x 256-bit = 384 GB/s (" + _sa4 + ")",
     bf16=(r1(40 * 1680 * 1024 / 1e6), WS1024.format(sm=40, mhz=1680, wp=GA_WP, pages=_sa4)),
     note=LAPTOP + " Not the desktop RTX A4000 (16 GB, 448 GB/s).")

# GeForce GTX 750 Ti (GM107, first-generation Maxwell): NVIDIA's reference card.
HH_750TI = ("HotHardware, NVIDIA GeForce GTX 750 Ti Maxwell GPU review (NVIDIA's specification table)",
            "https://hothardware.com/reviews/nvidia-geforce-gtx-750-ti-maxwell-gpu-review")
_hh750 = page(*HH_750TI, "GeForce GTX 750 Ti column: \"CUDA Cores (single precision)\" \"640\", \"Boost Clock\" \"1085 MHz\", "
              "\"Memory Clock (Data rate)\" \"5400 MHz\", \"Total Video Memory\" \"2048 MB GDDR5\", \"Memory Interface\" \"128-Bit\", "
              "\"Total Memory Bandwidth\" \"86.4 GB/s\"")
card("gtx-750-ti", "GeForce GTX 750 Ti 2GB", "NVIDIA", ["GTX 750 Ti", "750 Ti", "NVIDIA GeForce GTX 750 Ti", "GTX 750 Ti 2GB"],
     2, _hh750, 86.4, _hh750,
     fp32=(r1(640 * 1085 * 2 / 1e6), "derived: 640 CUDA cores x boost 1085 MHz x 2 FLOP/clk (" + _hh750 + ")"),
     note=MAXWELL + " NVIDIA's reference card (2 GB). Boards with another memory size print the same name and are not "
          "catalogued: give a `--catalog` entry. Not the GTX 750 (512 cores, 1 GB, 80 GB/s; not catalogued).")

# RTX 2000 Ada Generation Laptop GPU (AD107). Its printed name is NVIDIA's driver string, listed in
# the PCI ID database as the report below quotes.
PPC_ADAL = ("PurePC, NVIDIA RTX Ada: informacje o nowych układach graficznych dla mobilnych stacji roboczych (PCI ID database names)",
            "https://www.purepc.pl/nvidia-rtx-ada-pojawily-sie-informacje-o-nowych-ukladach-graficznych-dla-mobilnych-stacji-roboczych")
NBC_2000AL = ("Notebookcheck, NVIDIA RTX 2000 Ada Generation Laptop GPU",
              "https://www.notebookcheck.net/NVIDIA-RTX-2000-Ada-Generation-Laptop-GPU-Benchmarks-and-Specs.744893.0.html")
ADB_2000AL = ("cpu-gpu.alldbin.com, GeForce RTX 3060 Mobile and RTX 2000 Ada Generation Mobile comparison (database copy)",
              "https://cpu-gpu.alldbin.com/graphics-card-comparison/GeForce-RTX-3060-mobile-and-RTX-2000-Ada-Generation-mobile-comparison.html")
_a2000al = page(*ADB_2000AL, "RTX 2000 Ada Generation Mobile: \"Pipelines / CUDA cores\" \"3072\", \"Memory type\" \"GDDR6\", \"Maximum RAM "
                "amount\" \"8 GB\", \"Memory bus width\" \"128 Bit\", \"Memory clock speed\" \"16000 MHz\"")
card("rtx-2000-ada-laptop", "RTX 2000 Ada Generation Laptop GPU", "NVIDIA",
     ["RTX 2000 Ada Generation Laptop GPU", "RTX 2000 Ada Laptop GPU", "RTX 2000 Ada Laptop", "2000 Ada Laptop", "RTX 2000 Ada Mobile",
      "NVIDIA RTX 2000 Ada Generation Laptop GPU"],
     8, unread(page(*NBC_2000AL, "\"a mid-range professional graphics card for use in laptops that sports 3,072 CUDA cores and 8 GB of GDDR6 "
                                 "VRAM\", \"powered by the same AD107 chip\" as the GeForce RTX 4060 Laptop GPU")) + "; " + _a2000al,
     256, "derived: 16 Gbps x 128-bit = 256 GB/s (" + _a2000al + ")",
     note=LAPTOP + " AD107, the RTX 4060 Laptop GPU's chip. Its boost clock was not read on a citable page, so no tensor rate is "
          "catalogued: the prefill ceiling is unknown. Its printed name is NVIDIA's (" + unread(page(*PPC_ADAL,
          "\"NVIDIA_DEV.28B8 = \\\"NVIDIA RTX 2000 Ada Generation Laptop GPU\\\"\"")) + "). Not the desktop RTX 2000 Ada (16 GB).")

# GeForce MX450 and MX550: laptop-only TU117 parts on a 64-bit bus (their names carry no "Laptop").
DP_MX450 = ("dobreprogramy, Nvidia GeForce MX450 oficjalnie (launch report)",
            "https://www.dobreprogramy.pl/Nvidia-GeForce-MX450-oficjalnie.-Nie-taka-slaba-karta-do-laptopow-ultramobilnych,News,110773.html")
_mx450 = page(*DP_MX450, "\"GeForce MX450 ma 896 jednostek CUDA\", \"oferuje nie 128-, lecz 64-bitową magistralę danych. W zależności od "
              "modelu laptopa, znajdzie się na niej 2 GB pamięci VRAM typu GDDR5 lub GDDR6, co powinno zaowocować przepustowością do 80 GB/s\"")
card("mx450", "GeForce MX450 2GB", "NVIDIA", ["MX450", "GeForce MX450", "NVIDIA GeForce MX450"], 2, _mx450, 80, _mx450,
     note=TU117 + " " + LAPTOP + " Laptop-only part sold with GDDR5 or GDDR6 under one name: the 80 GB/s is the GDDR6 boards' "
          "\"up to\" figure, an upper bound for the GDDR5 ones. NVIDIA published no clocks and the reports read disagree on them, so "
          "no FP32 rate is catalogued: the prefill ceiling is unknown.")
NBC_MX550 = ("Notebookcheck, NVIDIA GeForce MX550", "https://www.notebookcheck.net/NVIDIA-GeForce-MX550-GPU-Benchmarks-and-Specs.586933.0.html")
ADB_MX550 = ("cpu-gpu.alldbin.com, Radeon 550X and GeForce MX550 comparison (database copy)",
             "https://cpu-gpu.alldbin.com/graphics-card-comparison/Radeon-550X-and-GeForce-MX550-comparison.html")
_nmx550 = page(*NBC_MX550, "\"based on the old Turing TU117 chip (as the older MX450) and uses a 64 Bit memory bus with GDDR6 graphics memory\", "
               "\"Pipelines\" \"1024 - unified\", \"Core Speed\" \"1320 (Boost) MHz\", \"Memory Speed\" \"12000 MHz\", \"Memory Bus Width\" "
               "\"64 Bit\"")
_amx550 = page(*ADB_MX550, "GeForce MX550: \"Maximum RAM amount\" \"2 GB\", \"Memory bus width\" \"64 Bit\", \"Memory clock speed\" \"12000 MHz\", "
               "\"Memory bandwidth\" \"96 GB/s\"")
card("mx550", "GeForce MX550 2GB", "NVIDIA", ["MX550", "GeForce MX550", "NVIDIA GeForce MX550"], 2, _amx550,
     96, "derived: 12 Gbps GDDR6 x 64-bit = 96 GB/s (" + unread(_nmx550) + "; " + _amx550 + ")",
     fp32=(r1(1024 * 1320 * 2 / 1e6), "derived: 1024 CUDA cores x boost 1320 MHz x 2 FLOP/clk (" + _nmx550 + ")"),
     note=TU117 + " " + LAPTOP + " Laptop-only part (15-25 W); not the Ampere MX570 (not catalogued).")

# (end of the eleventh pass)



# --- twelfth pass: AMD and Intel workstation, older and laptop parts ---------------------------
# Issue #30: AMD and Intel parts llama.cpp users run that did not resolve: Mac Pro MPX and iMac Pro
# modules, a dual-GPU Radeon Pro Duo, the RX 7700, the Radeon Pro 5600M, Radeon RX 5000M/6000M/7000M
# laptop parts, Intel Arc A-series laptop parts and the Arc Pro A50/A60. Every figure quotes the
# page it was read on ("[read]"); a database copy is labelled so. Dual-GPU boards are catalogued per GPU:
# llama.cpp lists each GPU as its own device. Laptop entries keep their own names ("M", "S") and
# never answer to the desktop card's.
RDNA3M = ("RDNA3 laptop part: the WMMA FP16 rate (CUs x boost x 512 FLOP/clk/CU, AMD's peak half-precision figure) is "
          "shown. Infinity Cache is not counted in the bandwidth. " + LAPTOP.replace("Never the desktop card of the same number.",
                                                                                   "Never the desktop RX card of the same number."))
RDNA1M = RDNA1 + " " + LAPTOP.replace("Never the desktop card of the same number.", "Never the desktop RX card of the same number.")
ARCM = ("Alchemist (Xe-HPG) laptop part with XMX matrix engines whose rate is not catalogued: the FP32 vector rate stands in, "
        "so the prefill ceiling is conservative. " + LAPTOP)
ARCPRO = "Alchemist (Xe-HPG) workstation card: XMX matrix rate not catalogued, the FP32 vector rate stands in, so the prefill ceiling is conservative."

# AMD Radeon RX 7700 (desktop, 2025): Navi 32 cut to 40 CUs on the RX 7800 XT's 16 GB, 256-bit bus.
IPON_7700 = ("iponshop.de, Neue AMD-Grafikkarte: die Radeon RX 7700 wird heimlich veröffentlicht (launch report)",
             "https://iponshop.de/zeitschrift/artikel/neue-amd-grafikkarte-die-radeon-rx-7700-wird-heimlich-veroffentlicht")
CYG_7700 = ("de.cygames.top, Neue Radeon RX 7700: Langsamer als die RX 7700 XT, aber mit RX-7800-XT-Speicher (copy of a ComputerBase report)",
            "https://de.cygames.top/news/grafikkarten/neue-radeon-rx-7700-langsamer-als-die-rx-7700-xt-aber-mit-rx-7800-xt-speicher.94391")
_i7700 = rd(IPON_7700, "\"kann mit insgesamt 40 aktiven CU-Arrays aufwarten, was zu 2.560 Stream Units\", \"256-Bit-Speicheradressraum und 16 GB "
            "GDDR6-VRAM wie bei der Radeon RX 7800 XT\", \"die Speicherchips sind mit 19,5 GHz getaktet, was eine effektive Speicherbandbreite "
            "von 624 GB/s ermöglicht\"")
card("rx-7700", "Radeon RX 7700 16GB", "AMD", ["RX 7700", "Radeon RX 7700", "AMD Radeon RX 7700", "RX 7700 16GB"],
     16, _i7700, 624, cut(_i7700) + "; " + rd(CYG_7700, "\"Mit 19,5 Gbps schnellen 16 GB GDDR6 am 256-Bit-Interface bietet die neue Radeon RX 7700 "
                                              "beim Speicher exakt die Eckdaten der Radeon RX 7800 XT\""),
     note=RDNA3 + " Its boost clock was not read on a citable page, so no FP16 rate is catalogued: the prefill ceiling is unknown. "
          "Not the RX 7700 XT (54 CUs, 12 GB, 432 GB/s), a separate entry.")

# Mac Pro (2019) MPX modules with RDNA2: W6900X, W6800X and the two-GPU W6800X Duo.
LN_W6000X = ("Lega Nerd, Apple e AMD presentano le nuove schede video dei Mac Pro (launch report)",
             "https://leganerd.com/2021/08/03/apple-e-amd-presentano-le-nuove-schede-video-dei-mac-pro/")
CB_W6000X = ("ComputerBase, Radeon Pro W6000X: Der Mac Pro erhält AMD RDNA 2 mit bis zu vier GPUs (launch report)",
             "https://computerbase.de/2021-08/radeon-pro-w6000x-der-mac-pro-erhaelt-amd-rdna-2-mit-bis-zu-vier-gpus")
PCGV_W6800XD = ("PC Gaming Vault, AMD annuncia la Radeon PRO W6800X Duo (launch report)",
                "https://pcgamingvault.com/2021/08/04/amd-annuncia-la-radeon-pro-w6800x-duo")
MPX = " Mac Pro (2019) MPX module; the 128 MB Infinity Cache is not counted in the bandwidth."
_w6900x = rd(LN_W6000X, "W6900X: \"80 unità computazionali, 5120 core con clock di 2171 MHz per offrire fino a 22,2 TFLOPs di FP32 e 44,4 TFLOPs "
             "di FP16\", \"l'interfaccia bus da 256-bit a 512 GB/s e la memoria da 32GB\"")
card("radeon-pro-w6900x", "Radeon Pro W6900X 32GB", "AMD", ["Radeon Pro W6900X", "Pro W6900X", "W6900X", "AMD Radeon Pro W6900X"],
     32, _w6900x, 512, _w6900x, fp32=(22.2, _w6900x),
     note=RDNA2 + MPX + " Not the Radeon PRO W6800 or W6800X (separate entries).")
_w6800x = rd(LN_W6000X, "W6800X: \"60 unità computazionali\", \"2087 MHz di clock, fino a 16 TFLOPs di FP32 e 32 TFLOPs di FP16\", \"32GB di "
             "memoria GDDR6 e interfaccia bus da 256-bit a 512 GB/s\"")
card("radeon-pro-w6800x", "Radeon Pro W6800X 32GB", "AMD", ["Radeon Pro W6800X", "Pro W6800X", "W6800X", "AMD Radeon Pro W6800X"],
     32, _w6800x, 512, _w6800x, fp32=(16.0, _w6800x),
     note=RDNA2 + MPX + " Not the PCIe Radeon PRO W6800 (17.8 TFLOPS) nor one GPU of the W6800X Duo (lower clocks): separate entries.")
_cb_duo = rd(CB_W6000X, "Radeon Pro W6800X Duo: \"zwei GPUs auf einem Board\", \"insgesamt 120 Compute Units, 7.680 Stream Processors, 64 GB "
             "GDDR6 (je 32 GB an 256 Bit)\", \"30,2 TFLOPS FP32-Leistung\"")
card("radeon-pro-w6800x-duo", "Radeon Pro W6800X Duo (one of its two GPUs, 32GB)", "AMD",
     ["Radeon Pro W6800X Duo", "Pro W6800X Duo", "W6800X Duo", "AMD Radeon Pro W6800X Duo"],
     32, _cb_duo, 512, cut(_cb_duo) + "; " + rd(PCGV_W6800XD, "\"64 GB di GDDR6 articolati su un Bus da 256-bit per GPU, in modo da sviluppare un "
                                                   "Bandwidth di 512 Gbps per singolo chip\" (512 GB/s per GPU)"),
     fp32=(15.1, "derived: 30.2 TFLOPS for the board / 2 GPUs (" + cut(_cb_duo) + "; "
           + rd(LN_W6000X, "W6800X DUO: \"Il clock di entrambe sarà di 1979 MHz, con fino a 30,2 TFLOPs di FP32\"") + ")"),
     note=RDNA2 + MPX + " Two Navi 21 GPUs (60 CUs each) on one board: llama.cpp lists each as its own device; the entry is one GPU "
          "(32 GB, 512 GB/s). Clocked lower than the single-GPU W6800X (a separate entry).")

# Radeon Pro Duo (2017, Polaris): two Polaris GPUs with 16 GB of GDDR5 each on one board.
CB_DUO = ("ComputerBase, Radeon Pro Duo 2.0: Dual-Polaris und 32 GB GDDR5 für 1.000 US-Dollar (launch report)",
          "https://computerbase.de/2017-04/radeon-pro-duo-polaris")
_cbd = rd(CB_DUO, "\"Die neue Radeon Pro Duo mit zwei Mal Polaris\", \"der Speicher ist mit 32 GB GDDR5 aber vier Mal so groß\", \"die GPUs der "
          "Radeon Pro Duo mit Polaris erreichen maximal 1.243 MHz\", GDDR5 \"taktet allerdings nur mit 3.500 und nicht mit 4.000 MHz\" "
          "(the RX 580's 8 Gbps is 4,000 MHz: 7 Gbps), \"die neue Pro Duo mit 11,45 zu 16,38 TFLOPS\"")
card("radeon-pro-duo-polaris", "Radeon Pro Duo Polaris 16GB (one of its two GPUs)", "AMD",
     ["Radeon Pro Duo Polaris", "Pro Duo Polaris", "AMD Radeon Pro Duo Polaris"],
     16, "derived: 32 GB on the board / 2 GPUs (" + _cbd + ")",
     224, "derived: 7 Gbps x 256-bit = 224 GB/s per GPU (" + cut(_cbd) + "; Polaris 10/20's bus: " + rd(G3D_590, "\"Memory sits on a 256-bit wide bus\"") + ")",
     fp32=(r1(11.45 / 2), "derived: 11.45 TFLOPS for the board / 2 GPUs (" + _cbd + ")"),
     note=POLARIS + " The 2017 dual-Polaris board: llama.cpp lists each GPU as its own device; the entry is one GPU. A bare "
          "\"Radeon Pro Duo\" also names the 2016 dual-Fiji board (2 x 4 GB HBM, not catalogued), so it stays unknown.")

# iMac Pro (2017): Radeon Pro Vega 56 and Vega 64, Vega 10 with HBM2.
P3D_IMACPRO = ("Planet 3DNow!, Apples neue iMacs kommen mit neuen AMD-Radeon-GPUs (inklusive Vega) (WWDC 2017 report citing Apple)",
               "https://www.planet3dnow.de/cms/32346-apples-neue-imacs-kommen-mit-amd-radeon-gpus-inklusive-vega/")
SN_PROVEGA = ("SegmentNext, AMD Radeon Pro Vega 64 And Vega 56 To Power The iMac Pro (launch report)", "https://segmentnext.com/amd-radeon-pro-vega-64/")
_p3d = ("\"iMac Pro genannt, enthält dabei eine Radeon Pro Vega 56 mit 8 GiB HBM2. Optional ist er stattdessen mit einer Radeon Pro Vega 64 mit "
        "16 GiB HBM2\", \"Apple nennt als technische Daten der Radeon Pro Vega 400 GB/s Speicherbandbreite sowie eine Rechenleistung von 11 TFLOPS "
        "in Single-Precision\"")
_sn = rd(SN_PROVEGA, "\"The AMD Radeon Pro Vega 64 is expected to provide 22 TFLOPS of graphics horsepower using 400GB/S of memory bandwidth\" "
         "(22 TFLOPS is the packed FP16 rate, twice FP32)")
card("radeon-pro-vega-64", "Radeon Pro Vega 64 16GB (iMac Pro)", "AMD", ["Radeon Pro Vega 64", "Pro Vega 64", "AMD Radeon Pro Vega 64"],
     16, rd(P3D_IMACPRO, _p3d), 400, cut(rd(P3D_IMACPRO, _p3d)) + "; " + _sn,
     fp32=(11.0, cut(rd(P3D_IMACPRO, _p3d)) + " (the top configuration); " + _sn),
     note=VEGA10 + " The iMac Pro (2017) part, clocked below the desktop RX Vega 64 (a separate entry). The 2019 \"Radeon Pro "
          "Vega 64X\" is not catalogued.")
card("radeon-pro-vega-56", "Radeon Pro Vega 56 8GB (iMac Pro)", "AMD", ["Radeon Pro Vega 56", "Pro Vega 56", "AMD Radeon Pro Vega 56"],
     8, rd(P3D_IMACPRO, _p3d),
     400, rd(P3D_IMACPRO, _p3d) + " (Apple's one bandwidth figure for its Radeon Pro Vega options, so an upper bound for the Vega 56)",
     note=VEGA10 + " The iMac Pro (2017) base GPU, 56 CUs. Apple gives one bandwidth (400 GB/s) for both its Vega options and no "
          "FP32 rate for this one, so the bandwidth is an upper bound and the prefill ceiling is unknown. Not the desktop RX Vega 56.")

# Radeon Pro 5600M (MacBook Pro 16-inch, 2020): Navi 12 with 8 GB of HBM2.
TEK_5600M = ("TekRooms, Annunciata nuovamente la RX 5600M ma stavolta basata su Navi 12 (the MacBook Pro's Radeon Pro 5600M, launch report)",
             "https://www.tekrooms.it/annunciata-nuovamente-la-rx-5600m-ma-stavolta-basata-su-navi-12/")
_t5600 = rd(TEK_5600M, "\"Questa 'nuova' GPU è basata sul chip Navi 12 e presenta 40 CUs\", \"gli stessi 2560 SP\", \"La nuova GPU è un esclusiva "
            "per prodotti Apple e nello specifico per il MacBook Pro 16\", \"presenta un Boost Clock di 1035 MHz\", \"8 GB di Low Powered HBM2\", "
            "\"Le memorie hanno un BUS di 2048 bit ed un Bandwidth di 394 GB/s\"")
card("radeon-pro-5600m", "Radeon Pro 5600M 8GB (MacBook Pro)", "AMD", ["Radeon Pro 5600M", "Pro 5600M", "AMD Radeon Pro 5600M"],
     8, _t5600, 394, _t5600, fp32=(r1(2560 * 1035 * 2 / 1e6), f"derived: 2560 stream processors x boost 1035 MHz x 2 FLOP/clk ({_t5600})"),
     note=RDNA1 + " MacBook Pro 16-inch (2020) part: Navi 12 with HBM2, not the GDDR6 Radeon RX 5600M laptop part (36 CUs, "
          "a separate entry) nor the Radeon Pro 5500M.")

# Radeon RX 5000M, 6000M and 7000M laptop parts.
NBC_5600M = ("Notebookcheck, AMD Radeon RX 5600M", "https://www.notebookcheck.net/AMD-Radeon-RX-5600M-GPU.449471.0.html")
_n5600 = rd(NBC_5600M, "\"It features 2,304 cores (36 CUs - compute units)\", \"Radeon RX 5600M 2304 @ 1.27 GHz192 Bit @ 12000 MHz\", \"Core Speed"
            "1265 (Boost) MHz\", \"Memory Speed12000 MHz\", \"Memory Bus Width192 Bit\", \"Max. Amount of Memory6 GB\"")
card("rx-5600m", "Radeon RX 5600M 6GB", "AMD", ["RX 5600M", "5600M", "Radeon RX 5600M", "AMD Radeon RX 5600M"],
     6, _n5600, 288, f"derived: 12 Gbps x 192-bit = 288 GB/s ({_n5600})",
     fp32=(r1(2304 * 1265 * 2 / 1e6), f"derived: 2304 stream processors x boost 1265 MHz x 2 FLOP/clk ({_n5600})"),
     note=RDNA1M + " Navi 10 with 36 CUs; not the MacBook Pro's Radeon Pro 5600M (HBM2, a separate entry).")

TT_6850M = ("TweakTown, AMD Radeon RX 6850M XT: best mobile RDNA 2 GPU, faster 18Gbps GDDR6 (launch report)",
            "https://www.tweaktown.com/news/83757/amd-radeon-rx-6850m-xt-best-mobile-rdna-2-gpu-faster-18gbps-gddr6/index.html")
FPSB_6850M = ("fpsbench.com, AMD Radeon RX 6850M XT vs Intel UHD Graphics P630 (database copy)",
              "https://fpsbench.com/compare/gpu/amd-radeon-rx-6850m-xt-vs-intel-uhd-graphics-p630")
_f6850 = rd(FPSB_6850M, "RX 6850M XT \"Shading Units\" \"2,560\", \"Boost Clock\" \"2581 MHz\", \"Memory Clock\" \"2250 MHz 18 Gbps effective\", "
            "\"Memory Size\" \"12 GB\", \"Memory Bus\" \"192 bit\", \"Bandwidth\" \"432.0 GB/s\", \"FP32 (TFLOPS)\" \"13.21 TFLOPS\"")
card("rx-6850m-xt", "Radeon RX 6850M XT 12GB", "AMD", ["RX 6850M XT", "6850M XT", "Radeon RX 6850M XT", "AMD Radeon RX 6850M XT"],
     12, rd(TT_6850M, "\"the flagship Radeon RX 6850M XT graphics card that rocks 12GB of GDDR6 memory\""),
     432, "derived: 18 Gbps x 192-bit = 432 GB/s (" + cut(rd(TT_6850M, "\"12GB of GDDR6 memory at the faster 18Gbps bandwidth, on a 192-bit memory "
                                                         "interface\"")) + "; " + _f6850 + ")",
     fp32=(13.2, _f6850), note=RDNA2M + " Navi 22 with 40 CUs. Not the RX 6800M (16 Gbps, 384 GB/s), a separate entry.")
SC_6650M = ("siliconcat.net, AMD Radeon RX 6650M vs AMD Radeon RX 6850M XT (database copy)",
            "https://siliconcat.net/gpu/compare/amd-radeon-rx-6650m-vs-amd-radeon-rx-6850m-xt")
_s6650 = rd(SC_6650M, "RX 6650M column: \"Boost Clock\" \"2416MHz\", \"Shading Units\" \"1792\", \"Compute Units\" \"28\", \"Memory Size\" \"8GB\", "
            "\"Memory Type\" \"GDDR6\", \"Memory Bus\" \"128bit\", \"Memory Clock\" \"2000MHz\" (GDDR6 at 2000 MHz is 16 Gbps)")
card("rx-6650m", "Radeon RX 6650M 8GB", "AMD", ["RX 6650M", "6650M", "Radeon RX 6650M", "AMD Radeon RX 6650M"],
     8, _s6650, 256, f"derived: 16 Gbps x 128-bit = 256 GB/s ({_s6650})",
     fp32=(r1(1792 * 2416 * 2 / 1e6), f"derived: 1792 stream processors x boost 2416 MHz x 2 FLOP/clk ({_s6650})"),
     note=RDNA2M + " Navi 23 with 28 CUs. Not the RX 6650M XT (32 CUs) nor the RX 6600M: separate entries.")
FPSB_6650MXT = ("fpsbench.com, AMD Radeon RX 6650M XT vs AMD Radeon Vega 11 (database copy)",
                "https://fpsbench.com/compare/gpu/amd-radeon-rx-6650m-xt-vs-amd-radeon-vega-11")
_f6650x = rd(FPSB_6650MXT, "RX 6650M XT \"Shading Units\" \"2,048\", \"Compute Units\" \"32\", \"Boost Clock\" \"2416 MHz\", \"Memory Clock\" "
             "\"2000 MHz 16 Gbps effective\", \"Memory Size\" \"8 GB\", \"Memory Bus\" \"128 bit\", \"Bandwidth\" \"256.0 GB/s\", \"FP32 (TFLOPS)\" "
             "\"9.896 TFLOPS\"")
card("rx-6650m-xt", "Radeon RX 6650M XT 8GB", "AMD", ["RX 6650M XT", "6650M XT", "Radeon RX 6650M XT", "AMD Radeon RX 6650M XT"],
     8, _f6650x, 256, _f6650x, fp32=(9.9, _f6650x), note=RDNA2M + " Navi 23 with 32 CUs. Not the RX 6650M (28 CUs), a separate entry.")
FPSB_6550M = ("fpsbench.com, AMD Radeon Pro Vega 16 vs AMD Radeon RX 6550M (database copy)",
              "https://fpsbench.com/compare/gpu/amd-radeon-rx-6550m-vs-amd-radeon-pro-vega-16")
_f6550 = rd(FPSB_6550M, "RX 6550M column: \"Shading Units\" \"1,024\", \"Boost Clock\" \"2840 MHz\", \"Memory Clock\" \"2250 MHz 18 Gbps effective\", "
            "\"Memory Size\" \"4 GB\", \"Memory Bus\" \"64 bit\", \"Bandwidth\" \"144.0 GB/s\", \"FP32 (TFLOPS)\" \"5.816 TFLOPS\"")
card("rx-6550m", "Radeon RX 6550M 4GB", "AMD", ["RX 6550M", "6550M", "Radeon RX 6550M", "AMD Radeon RX 6550M"],
     4, _f6550, 144, _f6550, fp32=(5.8, _f6550),
     note=RDNA2M + " Navi 24 with 16 CUs on a 64-bit bus (16 MB Infinity Cache not counted).")

EE_7000M = ("Everyeye Tech, AMD: le GPU Radeon RX 7000 arrivano sui laptop, presentati quattro modelli al CES 2023 (launch report)",
            "https://tech.everyeye.it/notizie/amd-gpu-radeon-rx-7000-arrivano-laptop-presentati-quattro-modelli-ces-2023-627799.html")
FPSB_7600MXT = ("fpsbench.com, AMD Radeon RX 7600M XT vs AMD Radeon Vega 8 (database copy)",
                "https://fpsbench.com/compare/gpu/amd-radeon-rx-7600m-xt-vs-amd-radeon-vega-8")
FPSB_7600M = ("fpsbench.com, AMD Radeon RX 7600M vs AMD Radeon RX Vega M GL (database copy)",
              "https://fpsbench.com/compare/gpu/amd-radeon-rx-7600m-vs-amd-radeon-rx-vega-m-gl")
CPT_7700S = ("cputronic.com, AMD Radeon RX 7700S (Russian page, database copy)", "https://cputronic.com/ru/gpu/amd-radeon-rx-7700s")
_ee32 = rd(EE_7000M, "\"Sia la Radeon RX 7600M XT che la Radeon RX 7700S hanno 32 CU con 2.048 shader processors, 8 GB di VRAM GDDR6 a 18 Gbps e un "
           "bus di interfaccia a 128-Bit\"")
_ee28 = rd(EE_7000M, "\"La Radeon RX 7600M e la Radeon RX 7600S, poi, dovrebbero avere un totale di 28 CU e di 1.792 shader processors, insieme ad "
           "una VRAM da 8 GB di GDDR6 a 16 Gbps e ad un bus di interfaccia a 128-Bit\"")
_f7600x = rd(FPSB_7600MXT, "RX 7600M XT \"Compute Units\" \"32\", \"Boost Clock\" \"2469 MHz\", \"Bandwidth\" \"288.0 GB/s\", \"FP16 (TFLOPS)\" "
             "\"40.45 TFLOPS (2:1)\" (32 x 2469 MHz x 512 = 40.45)")
card("rx-7600m-xt", "Radeon RX 7600M XT 8GB", "AMD", ["RX 7600M XT", "7600M XT", "Radeon RX 7600M XT", "AMD Radeon RX 7600M XT"],
     8, _ee32, 288, "derived: 18 Gbps x 128-bit = 288 GB/s (" + cut(_ee32) + "; " + _f7600x + ")",
     bf16=(40.5, _f7600x), note=RDNA3M + " Navi 33 with 32 CUs at up to 120 W; the RX 7700S is the same chip at up to 100 W (a separate entry).")
_f7600 = rd(FPSB_7600M, "RX 7600M \"Compute Units\" \"28\", \"Boost Clock\" \"2410 MHz\", \"Memory Clock\" \"2000 MHz 16 Gbps effective\", \"Bandwidth\" "
            "\"256.0 GB/s\", \"FP16 (TFLOPS)\" \"34.55 TFLOPS (2:1)\" (28 x 2410 MHz x 512 = 34.55)")
card("rx-7600m", "Radeon RX 7600M 8GB", "AMD", ["RX 7600M", "7600M", "Radeon RX 7600M", "AMD Radeon RX 7600M"],
     8, _ee28, 256, "derived: 16 Gbps x 128-bit = 256 GB/s (" + cut(_ee28) + "; " + _f7600 + ")",
     bf16=(34.5, _f7600), note=RDNA3M + " Navi 33 with 28 CUs. Not the RX 7600M XT (32 CUs, 18 Gbps), a separate entry.")
_c7700s = rd(CPT_7700S, "\"частотой ускорения 2500МГц\" (boost 2500 MHz), \"С 2048 шейдерными блоками\" (32 CUs of 64)")
card("rx-7700s", "Radeon RX 7700S 8GB", "AMD", ["RX 7700S", "7700S", "Radeon RX 7700S", "AMD Radeon RX 7700S"],
     8, _ee32, 288, "derived: 18 Gbps x 128-bit = 288 GB/s (" + _ee32 + ")",
     bf16=(r1(32 * 2500 * 512 / 1e6), "derived: 32 CUs x boost 2500 MHz x 512 FP16 FLOP/clk/CU (the RDNA3 WMMA rate) (" + cut(_ee32) + "; " + _c7700s + ")"),
     note=RDNA3M + " Navi 33 with 32 CUs at up to 100 W (the RX 7600M XT's chip at a lower power limit), so the FP16 figure is an upper bound.")
GT_7900M = ("Geektopia, AMD presenta la Radeon 7900M con 16 GB de VRAM y para portátiles (launch report)",
            "https://geektopia.es/es/technology/2023/10/19/noticias/amp/amd-presenta-la-radeon-7900m-con-16-gb-de-vram-y-para-portatiles-desde-2800-dolares.html")
_g7900 = rd(GT_7900M, "\"el chip está configurado con 72 unidades de cómputo o 4608 sombreadores, con una frecuencia en juegos de 1825 MHz y un turbo "
            "máximo de 2090 MHz. Incluye 16 GB de memoria GDDR6 a 18 Gb/s, con un bus de 256 bits y un ancho de banda de 576 GB/s\"")
card("rx-7900m", "Radeon RX 7900M 16GB", "AMD", ["RX 7900M", "7900M", "Radeon RX 7900M", "AMD Radeon RX 7900M"],
     16, _g7900, 576, _g7900,
     bf16=(r1(72 * 2090 * 512 / 1e6), f"derived: 72 CUs x boost 2090 MHz x 512 FP16 FLOP/clk/CU (the RDNA3 WMMA rate) ({_g7900})"),
     note=RDNA3M + " Navi 31 with 72 CUs on a 256-bit bus; not the desktop RX 7900 XT, XTX or GRE.")

# Intel Arc A-series laptop parts (Alchemist).
FPSB_A770M = ("fpsbench.com, Intel Arc A770M vs Intel HD Graphics P4600 (database copy)", "https://fpsbench.com/compare/gpu/intel-arc-a770m-vs-intel-hd-graphics-p4600")
_fa770m = rd(FPSB_A770M, "A770M \"Shading Units\" \"4,096\", \"Boost Clock\" \"2050 MHz\", \"Memory Clock\" \"2000 MHz 16 Gbps effective\", \"Memory Size\" "
             "\"16 GB\", \"Memory Bus\" \"256 bit\", \"Bandwidth\" \"512.0 GB/s\", \"FP32 (TFLOPS)\" \"16.79 TFLOPS\"")
CHIP_A7M = ("Chip.pl, Wydajność karty Intel Arc A730M", "https://www.chip.pl/2022/06/wydajnosc-karty-intel-arc-a730m/")
card("arc-a770m", "Arc A770M 16GB", "Intel", ["Arc A770M", "A770M", "Intel Arc A770M", "Intel Arc A770M Graphics"],
     16, _fa770m + "; " + rd(CHIP_A7M, "A730M and A770M: \"384 i 512 XVE\", \"odpowiednio 12 i 16 GB pamięci na 192- oraz 256-bitowej magistrali\""),
     512, _fa770m, fp32=(16.8, _fa770m), note=ARCM + " ACM-G10 with 32 Xe-cores; not the desktop Arc A770.")
PP_A730M = ("PurePC, Układ graficzny Intel Arc A730M w pierwszych testach w grach (specification table)",
            "https://www.purepc.pl/uklad-graficzny-intel-arc-a730m-w-pierwszych-testach-w-grach-wypada-pomiedzy-geforce-rtx-3050-oraz-geforce-rtx-3060")
NBC_A730M = ("Notebookcheck, Intel Arc A730M: Auch mit offiziellem Treiber-Support bleibt die Gaming-Leistung miserabel",
             "https://notebookcheck.com/Intel-Arc-A730M-Auch-mit-offiziellem-Treiber-Support-bleibt-die-Gaming-Leistung-miserabel.626644.0.html")
_pa730 = rd(PP_A730M, "Intel ARC A730M column: \"Jednostki SP\" \"3072\", \"Taktowanie bazowe\" \"1100 MHz\", \"Taktowanie pamięci\" \"14 Gbps\", "
            "\"Ilość pamięci\" \"12 GB GDDR6\", \"Szyna pamięci\" \"192-bit\"")
card("arc-a730m", "Arc A730M 12GB", "Intel", ["Arc A730M", "A730M", "Intel Arc A730M", "Intel Arc A730M Graphics"],
     12, _pa730 + "; " + rd(NBC_A730M, "\"Der Grafikchip ist mit 24 Xe-Kernen (384 EUs) und mit 12 GB GDDR6-Grafikspeicher an einem 192-bit-Interface ausgestattet\""),
     336, f"derived: 14 Gbps x 192-bit = 336 GB/s ({_pa730})",
     fp32=(r1(3072 * 1100 * 2 / 1e6), f"derived: 3072 FP32 lanes (24 Xe-cores) x graphics clock 1100 MHz x 2 FLOP/clk ({_pa730}); the "
           "sustained clock of a given laptop may be higher"),
     note=ARCM + " ACM-G10 with 24 Xe-cores; the FP32 figure uses Intel's graphics (base) clock.")
SH_A5M = ("SvětHardware, Intel představil mobilní GPU Arc A530M a Arc A570M", "https://www.svethardware.cz/intel-predstavil-mobilni-gpu-arc-a530m-a-arc-a570m/59832")
CN_A5M = ("CNews.cz, Intel potichu vydal další grafiky: nový čip ACM-G12 jde do notebooků jako Arc A570M a A530M",
          "https://www.cnews.cz/clanky/intel-potichu-vydal-dalsi-grafiky-novy-cip-acm-g12-jde-do-notebooku-jako-arc-a570m-a-a530m/")
GO4_A5M = ("Go4IT, Intel lansează două noi modele de GPU Arc pentru laptop-uri de gaming mid-range",
           "https://go4it.ro/content/laptopuri/intel-lanseaza-doua-noi-modele-de-gpu-arc-pentru-laptop-uri-de-gaming-mid-range-19223479")
_sh550 = rd(SH_A5M, "\"A370M s 8 Xe jádry a A550M s 16\", \"A550M má sice větší počet jader, ale frekvenci jen 900 MHz\", \"A370M má ale vyšší takt 1550 MHz\"")
card("arc-a550m", "Arc A550M 8GB", "Intel", ["Arc A550M", "A550M", "Intel Arc A550M", "Intel Arc A550M Graphics"],
     8, rd(GO4_A5M, "A570M: \"Practic, Arc A570M este un A550M cu overclocking. Memoria rămâne tot la 8 GB.\""),
     224, rd(CN_A5M, "\"již dříve vyráběný model A550M provozuje paměť na 14,0 GHz, což dává propustnost 224 GB/s\""),
     fp32=(r1(16 * 128 * 2 * 900 / 1e6), f"derived: 16 Xe-cores x 128 FP32 lanes x 2 FLOP x graphics clock 900 MHz ({_sh550})"),
     note=ARCM + " ACM-G10 cut to 16 Xe-cores at 60 W; not the later A570M or A530M (not catalogued).")
ADB_A370M = ("cpu-gpu.alldbin.com, HD Graphics 4000 and Arc 3 A370M comparison (database copy)",
             "https://cpu-gpu.alldbin.com/graphics-card-comparison/HD-Graphics-4000-and-Arc-3-A370M-comparison.html")
_a370 = rd(ADB_A370M, "Arc 3 A370M column: \"Boost clock speed\" \"1550 MHz\", \"Pipelines\" \"1024\", \"Maximum RAM amount\" \"4 GB\", "
           "\"Memory bus width\" \"64 Bit\", \"Memory clock speed\" \"12 GB/s\", \"Memory bandwidth\" \"96 GB/s\"")
card("arc-a370m", "Arc A370M 4GB", "Intel", ["Arc A370M", "A370M", "Intel Arc A370M", "Intel Arc A370M Graphics"],
     4, _a370, 96, _a370,
     fp32=(r1(1024 * 1550 * 2 / 1e6), f"derived: 1024 FP32 lanes (8 Xe-cores) x graphics clock 1550 MHz x 2 FLOP/clk ({cut(_a370)}; {_sh550})"),
     note=ARCM + " ACM-G11 with 8 Xe-cores on a 64-bit bus; not the Arc A350M (6 Xe-cores) nor the desktop Arc A380.")

# Intel Arc Pro A50 and A60 (workstation).
ADB_PROA50 = ("cpu-gpu.alldbin.com, Iris Xe Graphics MAX and Arc Pro A50 comparison (database copy)",
              "https://cpu-gpu.alldbin.com/graphics-card-comparison/Iris-Xe-Graphics-MAX-and-Arc-Pro-A50-comparison.html")
_pa50 = rd(ADB_PROA50, "Arc Pro A50 column: \"GPU code name\" \"DG2-128\", \"Boost clock speed\" \"2350 MHz\", \"Pipelines\" \"1024\", \"Maximum RAM "
           "amount\" \"6 GB\", \"Memory bus width\" \"96 Bit\", \"Memory clock speed\" \"16 GB/s\", \"Memory bandwidth\" \"192.0 GB/s\"")
card("arc-pro-a50", "Arc Pro A50 6GB", "Intel", ["Arc Pro A50", "Pro A50", "Intel Arc Pro A50", "Intel Arc Pro A50 Graphics"],
     6, _pa50, 192, _pa50, fp32=(r1(1024 * 2350 * 2 / 1e6), f"derived: 1024 FP32 lanes x boost 2350 MHz x 2 FLOP/clk ({_pa50})"),
     note=ARCPRO + " ACM-G11 with 8 Xe-cores. The Arc Pro A40 (same chip, single slot) is not catalogued.")
FPSB_PROA60 = ("fpsbench.com, Intel Arc Pro A60 vs NVIDIA Tesla T4 (database copy)", "https://fpsbench.com/compare/gpu/intel-arc-pro-a60-vs-nvidia-tesla-t4")
EE_PROA60 = ("Everyeye Tech, Intel: ufficiali le nuove Intel Arc Pro A60 e A60M (launch report)",
             "https://tech.everyeye.it/notizie/intel-ufficiali-nulove-intel-arc-pro-a60-a60m-pc-laptop-653471.html")
_fa60 = rd(FPSB_PROA60, "Pro A60 \"Shading Units\" \"2,048\", \"Boost Clock\" \"2050 MHz\", \"Memory Clock\" \"2000 MHz 16 Gbps effective\", \"Memory Size\" "
           "\"12 GB\", \"Memory Bus\" \"192 bit\", \"Bandwidth\" \"384.0 GB/s\", \"FP32 (TFLOPS)\" \"8.397 TFLOPS\"")
card("arc-pro-a60", "Arc Pro A60 12GB", "Intel", ["Arc Pro A60", "Pro A60", "Intel Arc Pro A60", "Intel Arc Pro A60 Graphics"],
     12, rd(EE_PROA60, "\"16 Core Xe, con 256 EU, 256 'motori' XMX\", \"12 GB di memoria video GDDR6 su bus a 192-bit\""),
     384, _fa60, fp32=(8.4, _fa60), note=ARCPRO + " ACM-G12 with 16 Xe-cores; not the Arc Pro A60M laptop part (not catalogued).")

# (end of the twelfth pass)

# --- thirteenth pass: integrated GPUs whose name fixes their memory ---------------------------
# Integrated GPUs whose name fixes the memory: soldered or on-package LPDDR at one speed and
# width on every device that has that GPU, so the bandwidth is the chip's. The memory figure is
# the largest configuration (as for Apple's chips); a smaller machine is a `--catalog` entry.
IGPU_NOTE = ("Unified memory shared with the CPU: the bandwidth is the chip's fixed LPDDR figure (the same on every device "
             "with this GPU); the memory figure is the largest configuration, of which the GPU gets what the OS and driver "
             "leave. Give a smaller machine's size with a `--catalog` entry.")

# Intel Lunar Lake (Core Ultra 200V): LPDDR5X-8533 on the package, 16 or 32 GB. The Arc 140V is
# the 8-Xe-core part (Core Ultra 7/9), the Arc 130V the 7-Xe-core part (Core Ultra 5).
TH_LNL = ("Tom's Hardware, Intel's Lunar Lake CPUs to use on-package Samsung LPDDR5X memory",
          "https://www.tomshardware.com/tech-industry/manufacturing/intels-lunar-lake-cpus-to-use-on-package-samsung-lpddr5x-memory")
MP_LNL = ("Meterpreter, Intel's Lunar Lake MX Revealed: On-Chip Memory Inside (Igor's Lab report)",
          "https://meterpreter.org/intels-lunar-lake-mx-revealed-on-chip-memory-inside/")
LLMS_LNL = ("intel/llm-scaler pull request #342, Lunar Lake Xe2 140V compatibility report (a contributor's document, "
            "not Intel's spec page)", "https://github.com/intel/llm-scaler/pull/342")
_lnl_mem = unread(page(*TH_LNL, "\"either 16GB or 32GB of LPDDR5X-8533 memory-on-package\""))
_lnl_bw = unread(page(*LLMS_LNL, "\"Intel Core Ultra 7 258V, Arc 140V iGPU, 32GB LPDDR5x (136.5 GB/s)\""))
_lnl_note = (" Lunar Lake's memory is on the package: LPDDR5X-8533, 16 or 32 GB, no other speed or width. Intel's own "
             "spec page was not read; 136.5 GB/s (8533 MT/s x 128 bits) is the figure the cited page states. The prefill "
             "ceiling is unknown (no XMX rate was read).")
card("arc-140v", "Arc 140V (Core Ultra 200V) 32GB", "Intel",
     ["Arc 140V", "Intel Arc 140V", "Arc 140V GPU", "Intel Arc 140V GPU", "Intel(R) Arc(TM) 140V GPU"],
     32, _lnl_mem + "; " + page(*MP_LNL, "\"dual-channel LPDDR5X-8533 memory in 16GB and 32GB configurations\", \"Core 7 32GB – 4P+4E with 8 Xe-Cores\""),
     136.5, _lnl_bw + "; 8533 MT/s from " + _lnl_mem + " [read]",
     note=IGPU_NOTE + _lnl_note)
card("arc-130v", "Arc 130V (Core Ultra 5 200V) 32GB", "Intel",
     ["Arc 130V", "Intel Arc 130V", "Arc 130V GPU", "Intel Arc 130V GPU", "Intel(R) Arc(TM) 130V GPU"],
     32, _lnl_mem + "; " + page(*MP_LNL, "\"Core 5 32GB – 4P+4E with 7 Xe-Cores\""),
     136.5, "the Arc 140V parts' memory: the same LPDDR5X-8533 on every Lunar Lake package (" + _lnl_mem + "); 136.5 GB/s from "
     + _lnl_bw + " [read]",
     note=IGPU_NOTE + _lnl_note + " The 130V has 7 Xe-cores to the 140V's 8: the same decode ceiling.")

# AMD Strix Halo's 32-CU Radeon 8050S (Ryzen AI Max 390 and 385): the same package and 256-bit
# LPDDR5X-8000 as the Radeon 8060S. The launch report the 8060S entry cites names the 390's GPU
# the 32-CU Radeon 8050S, so "Ryzen AI Max 390" moves here from the 8060S entry.
TPU_STRIX = ("TechPowerUp, AMD Ryzen AI MAX 300 \"Strix Halo\" iGPU to Feature Radeon 8000S Branding",
             "https://techpowerup.com/328675/amd-ryzen-ai-max-300-strix-halo-igpu-to-feature-radeon-8000s-branding")
TOMSHW_STHT1 = ("Tom's Hardware Italia, AMD Ryzen AI MAX arriva per i PC assemblati (Sixunited STHT1 board)",
                "https://www.tomshw.it/hardware/amd-ryzen-ai-max-arriva-per-i-pc-assemblati-2025-07-22")
drop_alias("radeon-8060s", "Ryzen AI Max 390")
_r8060 = next(r for r in rows if r["id"] == "radeon-8060s")
_r8060["name"] = "Radeon 8060S (Ryzen AI Max+ 395)"
_r8060["note"] = _r8060["note"].replace(
    "The Radeon 8050S (32 CUs, Ryzen AI Max 385) is not catalogued, so RADV's generic "
    "\"AMD Radeon Graphics (RADV GFX1151)\" stays unknown.",
    "The Radeon 8050S (32 CUs, Ryzen AI Max 390 and 385) is an entry of its own, with the same bandwidth, so RADV's "
    "generic \"AMD Radeon Graphics (RADV GFX1151)\" stays unknown.")
card("radeon-8050s", "Radeon 8050S (Ryzen AI Max 390 and 385)", "AMD",
     ["Radeon 8050S", "Radeon 8050S Graphics", "AMD Radeon 8050S", "AMD Radeon 8050S Graphics", "Ryzen AI Max 390",
      "Ryzen AI Max 385"],
     128, page(*TOMSHW_STHT1, "the FP11 board \"per supportare l'intera gamma di processori AMD Ryzen AI MAX\" (380 to 395) "
                              "\"La scheda madre supporta fino a 128\" (GB; the text read ends there)") + " (AMD's own spec page was not read)",
     256, "derived: LPDDR5X-8000 x 256-bit = 256 GB/s, the Strix Halo package's memory interface, which the 8050S parts share ("
     + unread(page(*SH_STRIX, "\"Ryzen AI Max 390 ... Jeho GPU bude mít ve výsledku 32 CU a nese název Radeon 8050S\"; for the "
                               "series \"Využívat lze paměti LPDDR5x-8000 ... je zde 256bitové rozhraní\""))
     + "; " + unread(page(*TPU_STRIX, "\"The memory interface is a 256-bit wide LPDDR5X-8000\" (a pre-launch report)"))
     + "); a Ryzen AI Max 385 decodes Llama 3.1 8B Q4_K_M at 41.6 tok/s (Vulkan), more than any 128-bit LPDDR5X bus "
     "allows (https://github.com/deseven/strixhalo-homelab/issues/11) [read]",
     note=IGPU_NOTE + " Strix Halo's 32-CU iGPU: the Radeon 8060S's memory bus, so the same decode ceiling. Its clock was not "
          "read on a citable page, so the prefill ceiling is unknown. The 16-CU Radeon 8040S (Ryzen AI Max 380) is not "
          "catalogued: no page read states its memory bus.")


# NVIDIA Jetson AGX Orin and Orin NX: LPDDR5 soldered on the module, one width and speed per
# module. Figures from NVIDIA's comparison tables as copied by Ultralytics' docs and Seeed's wiki
# (NVIDIA's own datasheets were not read). CUDA prints "Orin" for every module: not an alias.
UL_JETSON = ("Ultralytics docs, Quick Start Guide: NVIDIA Jetson, Jetson comparison table (a copy of NVIDIA's figures)",
             "https://docs.ultralytics.com/guides/nvidia-jetson/")
SEEED_J401 = ("Seeed Studio wiki, Flash JetPack OS to J401 Carrier Board, reComputer J30/J40 specifications "
              "(a reseller's copy of NVIDIA's module figures)", "https://wiki.seeedstudio.com/reComputer_J4012_Flash_Jetpack/")
JETSON_NOTE = (IGPU_NOTE + " The memory is LPDDR5 soldered on the module. CUDA prints \"Orin\" for every Jetson Orin "
               "module (AGX, NX, Nano), so that name stays unknown: give the module. The prefill ceiling is unknown "
               "(no GPU tensor rate apart from the DLAs was read).")
_agx = page(*UL_JETSON, "Jetson AGX Orin 64GB: \"64GB 256-bit LPDDR5 204.8GB/s\"")
card("jetson-agx-orin-64gb", "Jetson AGX Orin 64GB", "NVIDIA",
     ["Jetson AGX Orin", "AGX Orin", "Jetson AGX Orin 64GB", "AGX Orin 64GB"],
     64, _agx, 204.8, _agx,
     note=JETSON_NOTE + " The 32 GB AGX Orin module was not read on a citable page: give it with a `--catalog` entry.")
_nx16 = (unread(page(*UL_JETSON, "Jetson Orin NX 16GB: \"16GB 128-bit LPDDR5 102.4GB/s\"")) + "; "
         + page(*SEEED_J401, "Jetson Orin NX 16GB: \"16GB 128-bit LPDDR5 102.4GB/s\""))
card("jetson-orin-nx-16gb", "Jetson Orin NX 16GB", "NVIDIA",
     ["Jetson Orin NX", "Orin NX", "Jetson Orin NX 16GB", "Orin NX 16GB"],
     16, _nx16, 102.4, _nx16,
     note=JETSON_NOTE + " The Orin NX 8GB has the same 128-bit LPDDR5 at 102.4 GB/s (an entry of its own).")
_nx8 = page(*SEEED_J401, "Jetson Orin NX 8GB: \"8GB 128-bit LPDDR5 102.4GB/s\"")
card("jetson-orin-nx-8gb", "Jetson Orin NX 8GB", "NVIDIA",
     ["Jetson Orin NX 8GB", "Orin NX 8GB"],
     8, _nx8, 102.4, _nx8,
     note=JETSON_NOTE + " Half the Orin NX 16GB's memory on the same 128-bit bus: the same decode ceiling.")

# (end of the thirteenth pass)

# --- fourteenth pass: datacenter variants for China, laptop and workstation parts ----------------
# Issue #30: cards users name that the catalog lacked. Every figure quotes the page it was read on
# ("[read]"); a database copy, a launch report or a pre-launch report is labelled so.

# NVIDIA A800 (Ampere, GA100): the A100 for China with NVLink cut to 400 GB/s; the memory and the
# tensor rates are the A100's, so each variant takes its A100 counterpart's datasheet figures (as
# NVIDIA's own repository copies them). The bare name covers three variants: ambiguous until the
# form factor and memory size are given, as for the A100.
TWK_A800 = ("Tweakers, Nvidia introduceert A800-gpu voor China (launch report)",
            "https://tweakers.net/nieuws/203182/nvidia-introduceert-a800-gpu-voor-china-die-niet-onder-exportrestricties-vs-valt.html")
TRTLLM = ("NVIDIA's own repository, github.com/NVIDIA/TensorRT-LLM tensorrt_llm/auto_parallel/cluster_info.py, whose entries are commented "
          "\"from\" the A100 datasheet (https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf) "
          "and the H100 datasheet (https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet)",
          "https://github.com/NVIDIA/TensorRT-LLM/blob/16d2467ea8e3b45d7d9555010c2ad018d006d5c1/tensorrt_llm/auto_parallel/cluster_info.py")
SC_A800 = ("siliconcat.net, NVIDIA A800 PCIe 40 GB (database copy)", "https://siliconcat.net/gpu/nvidia-a800-pcie-40-gb")
CT_A800 = ("cputronic.com, NVIDIA A800 PCIe 40 GB (database copy)", "https://cputronic.com/de/gpu/nvidia-a800-pcie-40-gb")
HMC_A800 = ("hmc-tech.com, NVIDIA A800 vs NVIDIA T40 (database copy)", "https://hmc-tech.com/gpu/nvidia-a800-vs-nvidia-t40")
_twk_same = unread(page(*TWK_A800, "\"De A800-serie is in grote lijnen gelijk aan de bestaande A100, hoewel de bandbreedte van de NVLink-interconnect "
                                   "is beperkt tot 400GB/s\", \"de vermelde prestaties zijn dezelfde als die van de A100-serie\", \"beschikt eveneens "
                                   "over maximaal 80GB HBM2e-geheugen, net als de A100\""))
_a800_bf16 = ("the A100's rate: " + unread(page(*TRTLLM, "\"A100\": MathThroughput(... float16=312, bfloat16=312 ...), the dense rate")) + "; "
              + _twk_same + "; derived alike: 108 SMs x boost 1410 MHz x 2048 dense FP16 FLOP/clk/SM = 311.9 (" + unread(page(*SC_A800,
              "A800 PCIe 40 GB: \"Boost Clock\" \"1410MHz\", \"Shading Units\" \"6912\", \"SM Count\" \"108\"")) + ") [read]")
A800_NOTE = ("The A100 for China: the A100's memory and tensor rates, NVLink cut to 400 GB/s (which only multi-GPU training over NVLink "
             "feels). No FP8 tensor cores: FP8 checkpoints run weight-only (W8A16) at the BF16 rate. The bare name \"A800\" covers three "
             "variants: name the form factor and memory size.")
card("a800-pcie-40gb", "A800 PCIe 40GB", "NVIDIA", ["A800", "A800 PCIe 40GB", "A800 40GB PCIe"],
     40, unread(page(*CT_A800, "\"der große 40 GB HBM2e-Speicher\", \"Speichertaktfrequenz von 1215 MHz\", \"6912 Schattierungseinheiten\"")) + "; "
     + page(*SC_A800, "\"NVIDIA A800 PCIe 40 GB\", \"Bus Interface\" \"PCIe 4.0 x16\""),
     1555, "the A100 PCIe 40GB's figure: " + unread(page(*TRTLLM, "\"A100-PCIe-40GB\": ClusterInfo(... memory_bw=1555, memory_budget_per_device=40 ...)"))
     + "; " + _twk_same + "; the A800 PCIe 40 GB's memory clock is the A100 40GB's, 1215 MHz (2.43 Gbps HBM2e x 5120-bit = 1555 GB/s; "
     + unread(page(*SC_A800, "\"It also has a memory frequency of 1215MHz\"")) + ") [read]",
     bf16=(312, _a800_bf16), note=A800_NOTE)
card("a800-pcie-80gb", "A800 PCIe 80GB", "NVIDIA", ["A800", "A800 80GB PCIe", "A800 PCIe 80GB", "NVIDIA A800 80GB PCIe"],
     80, unread(page(*HMC_A800, "NVIDIA A800: \"6912 Shaders\", \"80GB HBM2e\", \"1410MHz\", \"Form Factor\" \"PCIe Card\", \"TDP\" \"250W\"")) + "; "
     + page(*TWK_A800, "\"maximaal 80GB HBM2e-geheugen, net als de A100\""),
     1935, "the A100 PCIe 80GB's figure: " + unread(page(*TRTLLM, "\"A100-PCIe-80GB\": ClusterInfo(... memory_bw=1935, memory_budget_per_device=80 ...)"))
     + "; " + _twk_same + " [read]",
     bf16=(312, _a800_bf16 + "; " + page(*HMC_A800, "NVIDIA A800: \"BF16\" \"311.87 TFLOPS Tensor\", \"623.74 TFLOPS Tensor Sparse\"")),
     note=A800_NOTE + " The PCIe card's HBM2e runs slower than the SXM module's (1935 against 2039 GB/s).")
card("a800-sxm-80gb", "A800 SXM 80GB", "NVIDIA", ["A800", "A800 SXM", "A800-SXM4-80GB", "A800 SXM4 80GB", "A800 SXM 80GB"],
     80, page(*TWK_A800, "\"maximaal 80GB HBM2e-geheugen, net als de A100\", \"400W\" \"voor het SXM-model\""),
     2039, "the A100 SXM 80GB's figure: " + unread(page(*TRTLLM, "\"A100-SXM-80GB\": ClusterInfo(... memory_bw=2039, memory_budget_per_device=80 ...)"))
     + "; " + _twk_same + " [read]",
     bf16=(312, _a800_bf16), note=A800_NOTE + " The device name CUDA prints is \"NVIDIA A800-SXM4-80GB\".")

# NVIDIA H800 (Hopper, GH100): the H100 for China with NVLink and FP64 cut; the memory and the
# tensor rates are the H100's. The SXM module prints "NVIDIA H800", the PCIe card "NVIDIA H800
# PCIe" (114 SMs, the H100 PCIe's count), so the bare name is the SXM module's.
AIW_H800 = ("AI Wiki, NVIDIA H800 (an encyclopedia article)", "https://aiwiki.ai/wiki/nvidia_h800")
TUMG_H800 = ("Tumgag, NVIDIA H800 vs H100: The Invisible Bottlenecks (blog post)", "https://www.tumgag.com/tag/nvidia%20h100")
_h800_same = unread(page(*AIW_H800, "\"Built on the same Hopper architecture and the same GH100 silicon as the H100, the H800 was deliberately handicapped "
                                   "on certain capabilities, principally chip-to-chip interconnect bandwidth and double-precision (FP64) throughput\"")) + "; " \
    + unread(page(*TUMG_H800, "\"It shares the exact same silicon die as the H100 but is fundamentally constrained in two critical performance vectors\" "
                              "(NVLink \"400 GB/s\", FP64)"))
H800_NOTE = ("The H100 for China: the H100's memory and tensor rates, NVLink cut to 400 GB/s and FP64 to about 1 TFLOPS (neither "
             "touches single-GPU inference). NVIDIA's own H800 datasheet was not read: the figures are the H100's.")
card("h800-sxm", "H800 SXM5 80GB", "NVIDIA", ["H800", "H800 SXM", "H800 SXM5", "H800 SXM 80GB", "H800-SXM5-80GB"],
     80, "the H100 SXM's memory: " + unread(page(*TRTLLM, "\"H100-SXM\": ClusterInfo(... memory_bw=3350, memory_budget_per_device=80 ...)")) + "; "
     + _h800_same + " [read]",
     3350, "the H100 SXM's figure: " + unread(page(*TRTLLM, "\"H100-SXM\": ClusterInfo(... memory_bw=3350 ...)")) + "; " + _h800_same + " [read]",
     bf16=(989, "the H100 SXM's dense rate: " + unread(page(*TRTLLM, "\"H100-SXM\": MathThroughput(... fp8=1979, float16=989, bfloat16=989 ...)"))
           + "; " + _h800_same + " [read]"),
     fp8=(1979, "the H100 SXM's dense rate: " + unread(page(*TRTLLM, "\"H100-SXM\": MathThroughput(... fp8=1979 ...)")) + "; " + _h800_same + " [read]"),
     note=H800_NOTE + " CUDA prints \"NVIDIA H800\" for this module, so the bare name is its; the PCIe card is `H800 PCIe`.")
card("h800-pcie", "H800 PCIe 80GB", "NVIDIA", ["H800 PCIe", "H800 PCIe 80GB", "H800 80GB PCIe"],
     80, "the H100 PCIe's memory: " + unread(page(*TRTLLM, "\"H100-PCIe\": ClusterInfo(... memory_bw=2000, memory_budget_per_device=80 ...)")) + "; "
     + _h800_same + " [read]",
     2000, "the H100 PCIe's figure: " + unread(page(*TRTLLM, "\"H100-PCIe\": ClusterInfo(... memory_bw=2000 ...)")) + "; " + _h800_same + " [read]",
     bf16=(756, "the H100 PCIe's dense rate: " + unread(page(*TRTLLM, "\"H100-PCIe\": MathThroughput(... fp8=1513, float16=756, bfloat16=756 ...)"))
           + "; " + _h800_same + " [read]"),
     fp8=(1513, "the H100 PCIe's dense rate: " + unread(page(*TRTLLM, "\"H100-PCIe\": MathThroughput(... fp8=1513 ...)")) + "; " + _h800_same + " [read]"),
     note=H800_NOTE + " CUDA prints \"NVIDIA H800 PCIe\" with 114 SMs, the H100 PCIe's count.")

# GeForce RTX 50 laptop parts (Blackwell). NVIDIA publishes AI TOPS (FP4 with sparsity); on
# GeForce the dense FP16 rate with FP32 accumulate is a sixteenth of it, as the desktop RTX 5090's
# 3352 AI TOPS and 209.5 TFLOPS show (the RTX 5090 entry).
NW_L50 = ("Neowin, RTX 50 powered laptops promise double the performance and 40% better battery life (CES launch report, NVIDIA's table)",
          "https://www.neowin.net/news/rtx-50-powered-laptops-promise-double-the-performance-and-40-better-battery-life/")
MPIT_5090L = ("Multiplayer.it, La NVIDIA RTX 5090 per laptop potrebbe avere 24 GB di memoria GDDR7 (pre-launch report)",
              "https://multiplayer.it/notizie/la-nvidia-rtx-5090-per-laptop-potrebbe-avere-24-gb-di-memoria-gddr7.html")
AURA_5090L = ("Aurabyt, Why a laptop RTX 5090 isn't a desktop RTX 5090 (blog post)", "https://aurabyt.com/blog/laptop-vs-desktop-rtx-5090-power-truth")
PPC_5060L = ("PurePC, NVIDIA GeForce RTX 5060 Laptop GPU: specyfikacja układu graficznego Blackwell (launch report)",
             "https://www.purepc.pl/nvidia-geforce-rtx-5060-laptop-gpu-specyfikacja-ukladu-graficznego-blackwell-notebook")
def l50_rates(tops, quote):
    src = page(*NW_L50, quote)
    return dict(bf16=(r1(tops / 16), f"derived: {tops} AI TOPS (FP4 with sparsity) / 2 dense / 8 for FP16 with FP32 accumulate (GeForce "
                                     f"half rate; the RTX 5090's 3352 AI TOPS and 209.5 TFLOPS give the same ratio) ({src})"),
                fp8=(r1(tops / 8), f"derived: {tops} AI TOPS / 2 dense / 4 for FP8 with FP32 accumulate ({src})"),
                fp4=(r1(tops / 2), f"{src}: {tops} AI TOPS (FP4 with sparsity), halved"))
card("rtx-5090-laptop", "GeForce RTX 5090 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 5090 Laptop GPU"),
     24, page(*NW_L50, "RTX 5090 Laptop: \"CUDA cores 10,496\", \"Memory 24GB GDDR7\", \"256-bit bus\""),
     896, "derived: 28 Gbps GDDR7 x 256-bit = 896 GB/s (" + unread(page(*MPIT_5090L, "\"mantenendo il bus di memoria a 256 bit\", \"24 GB\", "
                                                                       "\"a ben 28 Gbps\"")) + "; "
     + page(*AURA_5090L, "Laptop RTX 5090: \"24 GB GDDR7\", \"Memory bandwidth\" \"~896 GB/s\"") + ")",
     note=LAPTOP + " GB203 (the desktop RTX 5080's chip) with 10,496 CUDA cores, 95-150 W.",
     **l50_rates(1824, "RTX 5090 Laptop \"AI TOPS 1,824\""))
card("rtx-5060-laptop", "GeForce RTX 5060 Laptop GPU", "NVIDIA", laptop_name("GeForce RTX 5060 Laptop GPU"),
     8, page(*PPC_5060L, "\"NVIDIA GeForce RTX 5060 Laptop GPU ... skorzysta z 8 GB pamięci GDDR7 na 128-bitowej szynie\""),
     384, page(*PPC_5060L, "\"Kostki będą operować na efektywnym zegarze 24 000 MHz, co przełoży się na ... przepustowość rzędu 384 GB/s\""),
     note=LAPTOP + " GB206 with 26 SMs (3,328 CUDA cores; " + unread(page(*PPC_5060L, "\"26 aktywnych bloków SM\", \"3328 rdzeni CUDA\"")) + "). "
          "NVIDIA's AI TOPS and boost clock were not read on a citable page, so no tensor rate is catalogued: the prefill ceiling "
          "is unknown.")

# Intel Arc Pro A40 (Alchemist, ACM-G11, single slot).
ADB_PROA40 = ("cpu-gpu.alldbin.com, Iris Graphics 540 and Arc Pro A40 comparison (database copy)",
              "https://cpu-gpu.alldbin.com/graphics-card-comparison/Iris-Graphics-540-and-Arc-Pro-A40-comparison.html")
_pa40 = rd(ADB_PROA40, "Arc Pro A40 column: \"GPU code name\" \"DG2-128\", \"Boost clock speed\" \"1700 MHz\", \"Pipelines / CUDA cores\" \"1024\", "
           "\"Memory type\" \"GDDR6\", \"Maximum RAM amount\" \"6 GB\", \"Memory bus width\" \"96 Bit\", \"Memory clock speed\" \"16 GB/s\", "
           "\"Memory bandwidth\" \"192.0 GB/s\"")
card("arc-pro-a40", "Arc Pro A40 6GB", "Intel", ["Arc Pro A40", "Pro A40", "Intel Arc Pro A40", "Intel Arc Pro A40 Graphics",
                                                 "Intel(R) Arc(TM) Pro A40 Graphics"],
     6, _pa40, 192, _pa40, fp32=(r1(1024 * 1700 * 2 / 1e6), f"derived: 1024 FP32 lanes x boost 1700 MHz x 2 FLOP/clk ({_pa40})"),
     note=ARCPRO + " ACM-G11 with 8 Xe-cores, single slot, 50 W: the Arc Pro A50's memory at a lower clock. (cputronic.com's page "
          "gives 8 GB on 128 bits: not followed.)")
_pa50r = next(r for r in rows if r["id"] == "arc-pro-a50")
_pa50r["note"] = _pa50r["note"].replace("The Arc Pro A40 (same chip, single slot) is not catalogued.",
                                        "The Arc Pro A40 (same chip, single slot, 1700 MHz) is an entry of its own.")

# More laptop tensor rates from hmc-tech.com's database (its boost clock at the highest power
# limit; NVIDIA's AI TOPS for the RTX 5060 Laptop GPU).
HMC_5060L = ("hmc-tech.com, NVIDIA GeForce RTX 5060 Laptop 100W vs Intel Arc A550M (database copy)",
             "https://hmc-tech.com/gpu/nvidia-geforce-rtx-5060-laptop-100w-vs-intel-arc-a550m")
_h5060l = page(*HMC_5060L, "NVIDIA GeForce RTX 5060 Laptop 100W: \"3328 Shaders\", \"8GB GDDR7\", \"2497MHz\", \"Peak AI Performance\" "
               "\"571.88 TFLOPS\" \"FP4 Tensor Sparse\", \"BF16\" ... \"35.74 TFLOPS Tensor\"")
_r = next(r for r in rows if r["id"] == "rtx-5060-laptop")
_r["bf16"] = (r1(571.88 / 16), "derived: 571.88 TFLOPS FP4 with sparsity (NVIDIA's AI TOPS) / 2 dense / 8 for FP16 with FP32 accumulate "
              "(GeForce half rate, as for the RTX 5090 Laptop GPU) (" + _h5060l + ")")
_r["fp8"] = (r1(571.88 / 8), "derived: 571.88 TFLOPS FP4 with sparsity / 2 dense / 4 for FP8 with FP32 accumulate (" + _h5060l + ")")
_r["fp4"] = (r1(571.88 / 2), _h5060l + ": 571.88 TFLOPS FP4 with sparsity, halved")
_r["note"] = _r["note"].replace(" NVIDIA's AI TOPS and boost clock were not read on a citable page, so no tensor rate is catalogued: the prefill "
                                "ceiling is unknown.", " The tensor rates are the 100 W configuration's (an upper bound).")

# TechPowerUp's GPU database as a repository scraped it (a database copy): one row per card with
# the memory size, type and bus width, the memory clock (GDDR6: x8 for the data rate; GDDR6X:
# x16; GDDR5: x4; HBM2/HBM2e: x2) and the shader count. Its "GPU clock" column is the base clock.
TPU_CSV = ("TechPowerUp GPU Database, as scraped in github.com/nkityd09/llm-calculator data/gpu_specs.csv (database copy)",
           "https://github.com/nkityd09/llm-calculator/blob/e9b5afc7af3563fd82ec778ffbbc465a8ec4b95a/data/gpu_specs.csv")
def tpu(row):
    return page(*TPU_CSV, "row " + row)
def tpu_bw(row, clock, mult, bus, what):
    rate = clock * mult / 1000
    bw = round(rate * bus / 8, 1)
    return bw, (f"derived: {what} at {clock} MHz x {mult} = {rate:g} Gbps x {bus}-bit = {bw:g} GB/s (" + tpu(row) + ")")

# The first rows' earlier figures, now with a database copy's row beside them.
_r = next(r for r in rows if r["id"] == "a800-pcie-40gb")
_r["bw"] = (_r["bw"][0], _r["bw"][1] + "; " + tpu("\"A800 PCIe 40 GB,GA100,...,\"40 GB, HBM2e, 5120 bit\",765 MHz,1215 MHz,6912 / 432 / 160\""))
_r = next(r for r in rows if r["id"] == "a800-pcie-80gb")
_r["bw"] = (_r["bw"][0], _r["bw"][1] + "; " + tpu("\"A800 PCIe 80 GB,GA100,...,\"80 GB, HBM2e, 5120 bit\",1065 MHz,1512 MHz,6912 / 432 / 160\" "
                                                  "(1512 MHz x 2 x 5120-bit = 1935 GB/s)"))
_r = next(r for r in rows if r["id"] == "a800-sxm-80gb")
_r["bw"] = (_r["bw"][0], _r["bw"][1] + "; " + tpu("\"A800 SXM4 80 GB,GA100,...,\"80 GB, HBM2e, 5120 bit\",1155 MHz,1593 MHz,6912 / 432 / 160\" "
                                                  "(1593 MHz x 2 x 5120-bit = 2039 GB/s)"))
_r = next(r for r in rows if r["id"] == "h800-sxm")
_r["mem"] = (_r["mem"][0], _r["mem"][1] + "; " + tpu("\"H800 SXM5,GH100,...,\"80 GB, HBM3, 5120 bit\",1095 MHz,1313 MHz,16896 / 528 / 24\" "
                                                     "(the H100 SXM5 80 GB row's memory and shader count)"))
_r = next(r for r in rows if r["id"] == "arc-pro-a40")
_r["bw"] = (_r["bw"][0], unread(_r["bw"][1]) + "; " + tpu("\"Arc Pro A40,DG2-128,...,PCIe 4.0 x8,\"6 GB, GDDR6, 96 bit\",1500 MHz,2000 MHz,1024 / 64 / 32\" "
                                                          "(16 Gbps x 96-bit = 192 GB/s)"))

# NVIDIA RTX 4000 SFF Ada Generation: AD104 cut to 48 SMs on a 160-bit bus at 70 W.
CB_4000SFF = ("ComputerBase, Nvidia RTX 4000 SFF Edition: Profis bekommen AD104 mit 20 GB und nur 70 Watt TDP (launch report)",
              "https://computerbase.de/2023-03/nvidia-rtx-4000-sff-edition-profis-bekommen-ad104-mit-20-gb-und-nur-70-watt-tdp")
_sff_row = "\"RTX 4000 SFF Ada Generation,AD104,...,\"20 GB, GDDR6, 160 bit\",720 MHz,1750 MHz,6144 / 192 / 80\""
_bw, _bws = tpu_bw(_sff_row, 1750, 8, 160, "GDDR6")
card("rtx-4000-sff-ada", "RTX 4000 SFF Ada Generation", "NVIDIA",
     ["RTX 4000 SFF Ada", "RTX 4000 SFF Ada Generation", "RTX 4000 SFF", "4000 SFF Ada", "NVIDIA RTX 4000 SFF Ada Generation"],
     20, unread(page(*CB_4000SFF, "\"Es nutzt AD104 mit 20 GB bei 70 Watt\", \"hat Nvidia das Speicherinterface von 192 auf 160 Bit verjüngt\", "
                                  "\"GDDR6 mit ECC\", \"auf 6.144 Shader\"")) + "; " + tpu(_sff_row),
     _bw, _bws,
     note="Ada workstation card, 70 W, single slot: 48 SMs on a 160-bit GDDR6 bus. Its boost clock and NVIDIA's AI TOPS were not "
          "read on a citable page, so no tensor rate is catalogued: the prefill ceiling is unknown. Not the RTX 4000 Ada Generation "
          "(same memory, 130 W, a higher clock; an entry of its own).")

# Quadro M6000 (Maxwell, GM200): 12 GB and, from 2016, 24 GB on the same 384-bit GDDR5 bus. The
# database lists only the base clock, so the FP32 figure is at 988 MHz (a lower bound).
for gb, row in [(12, "\"Quadro M6000,GM200,\"Mar 21st, 2015\",PCIe 3.0 x16,\"12 GB, GDDR5, 384 bit\",988 MHz,1653 MHz,3072 / 192 / 96\""),
                (24, "\"Quadro M6000 24 GB,GM200,\"Mar 5th, 2016\",PCIe 3.0 x16,\"24 GB, GDDR5, 384 bit\",988 MHz,1653 MHz,3072 / 192 / 96\"")]:
    _bw, _bws = tpu_bw(row, 1653, 4, 384, "GDDR5")
    card(f"quadro-m6000-{gb}gb", f"Quadro M6000 {gb}GB", "NVIDIA", ["Quadro M6000", "M6000", f"Quadro M6000 {gb}GB", f"M6000 {gb}GB"],
         gb, tpu(row), _bw, _bws,
         fp32=(r1(3072 * 988 * 2 / 1e6), "derived: 3072 CUDA cores x 988 MHz (the database's base clock; the boost clock was not read, so "
                                          "this is a lower bound) x 2 FLOP/clk (" + tpu(row) + ")"),
         note=MAXWELL + " GM200 with all 3072 cores. Both memory sizes share the name \"Quadro M6000\": name the size "
              f"(`Quadro M6000 {gb}GB`).")

# Quadro P1000 (Pascal, GP107): the database has a second P1000 row with 512 cores and 6 Gbps
# memory that matches no shipped card; the first row (640 cores, 5 Gbps) is followed.
_p1000_row = "\"Quadro P1000,GP107,\"Feb 7th, 2017\",PCIe 3.0 x16,\"4 GB, GDDR5, 128 bit\",1266 MHz,1253 MHz,640 / 40 / 32\""
_bw, _bws = tpu_bw(_p1000_row, 1253, 4, 128, "GDDR5")
card("quadro-p1000", "Quadro P1000 4GB", "NVIDIA", ["Quadro P1000", "P1000", "NVIDIA Quadro P1000"],
     4, tpu(_p1000_row), _bw, _bws,
     fp32=(r1(640 * 1266 * 2 / 1e6), "derived: 640 CUDA cores x 1266 MHz (the database's base clock; a lower bound) x 2 FLOP/clk ("
           + tpu(_p1000_row) + ")"),
     note=QP + " GP107, 47 W, four mini-DisplayPorts. (The database's second \"Quadro P1000\" row, 512 cores and 1502 MHz memory, "
          "is not followed.) Not the Quadro P1000 laptop part (not catalogued).")

# NVIDIA RTX Ampere and Ada laptop parts. The database lists their base clocks only, so no tensor
# rate is catalogued (the prefill ceiling is unknown); the memory is the fastest configuration.
def pro_laptop(id, name, al, gb, row, clock, bus, extra):
    bw, bws = tpu_bw(row, clock, 8, bus, "GDDR6")
    card(id, name, "NVIDIA", al, gb, tpu(row), bw, bws,
         note=LAPTOP + " The database lists only the base clock, so no tensor rate is catalogued: the prefill ceiling is unknown. " + extra)
pro_laptop("rtx-a2000-laptop", "RTX A2000 Laptop GPU",
           ["RTX A2000 Laptop GPU", "RTX A2000 Laptop", "A2000 Laptop", "RTX A2000 Mobile", "A2000 Mobile", "NVIDIA RTX A2000 Laptop GPU"],
           4, "\"RTX A2000 Mobile,GA106,...,\"4 GB, GDDR6, 128 bit\",1215 MHz,1500 MHz,2560 / 80 / 48\"", 1500, 128,
           "GA106 with 2560 cores. Not the desktop RTX A2000 (6 or 12 GB on 192 bits). An 8 GB laptop board, if any, is not catalogued.")
for gb, row, clock in [(6, "\"RTX A3000 Mobile,GA104,...,\"6 GB, GDDR6, 192 bit\",600 MHz,1375 MHz,4096 / 128 / 64\"", 1375),
                       (12, "\"RTX A3000 Mobile 12 GB,GA104,...,\"12 GB, GDDR6, 192 bit\",855 MHz,1750 MHz,4096 / 128 / 64\"", 1750)]:
    pro_laptop(f"rtx-a3000-laptop-{gb}gb", f"RTX A3000 Laptop GPU {gb}GB",
               ["RTX A3000 Laptop GPU", "RTX A3000 Laptop", "A3000 Laptop", "RTX A3000 Mobile", "NVIDIA RTX A3000 Laptop GPU",
                f"RTX A3000 Laptop GPU {gb}GB", f"RTX A3000 Laptop {gb}GB"],
               gb, row, clock, 192,
               "GA104 with 4096 cores. The 6 GB (11 Gbps) and 12 GB (14 Gbps) boards print one name: name the size "
               f"(`RTX A3000 Laptop GPU {gb}GB`).")
pro_laptop("rtx-a5000-laptop", "RTX A5000 Laptop GPU",
           ["RTX A5000 Laptop GPU", "RTX A5000 Laptop", "A5000 Laptop", "RTX A5000 Mobile", "A5000 Mobile", "NVIDIA RTX A5000 Laptop GPU"],
           16, "\"RTX A5000 Mobile,GA104,...,\"16 GB, GDDR6, 256 bit\",900 MHz,1750 MHz,6144 / 192 / 96\"", 1750, 256,
           "GA104 with all 6144 cores. Not the desktop RTX A5000 (24 GB, 768 GB/s).")
for n, gb, row, clock, bus, chip in [
    (3000, 8, "\"RTX 3000 Mobile Ada Generation,AD106,...,\"8 GB, GDDR6, 128 bit\",1395 MHz,2000 MHz,4608 / 144 / 48\"", 2000, 128, "AD106 with 4608 cores"),
    (4000, 12, "\"RTX 4000 Mobile Ada Generation,AD104,...,\"12 GB, GDDR6, 192 bit\",1290 MHz,2250 MHz,7424 / 232 / 80\"", 2250, 192, "AD104 with 7424 cores"),
    (5000, 16, "\"RTX 5000 Mobile Ada Generation,AD103,...,\"16 GB, GDDR6, 256 bit\",1425 MHz,2250 MHz,9728 / 304 / 112\"", 2250, 256, "AD103 with 9728 cores"),
]:
    pro_laptop(f"rtx-{n}-ada-laptop", f"RTX {n} Ada Generation Laptop GPU",
               [f"RTX {n} Ada Laptop GPU", f"RTX {n} Ada Laptop", f"{n} Ada Laptop", f"RTX {n} Ada Mobile",
                f"NVIDIA RTX {n} Ada Generation Laptop GPU"],
               gb, row, clock, bus, chip + f". Not the desktop RTX {n} Ada Generation.")
# The RTX 4000 Ada and RTX A2000 laptop parts' boost clocks at their highest power limits, read in
# hmc-tech.com's database; the workstation per-SM rate, as for the desktop parts (hmc-tech lists half
# that rate with FP32 accumulate for the RTX 4000 Ada laptop part: unsettled, noted in the source).
HMC_4000AL = ("hmc-tech.com, NVIDIA RTX 2000 Laptop vs NVIDIA RTX 4000 Laptop (database copy)",
              "https://hmc-tech.com/gpus/nvidia-rtx-2000-laptop-vs-nvidia-rtx-4000-laptop")
_h4000al = page(*HMC_4000AL, "RTX 4000 Laptop: \"7,424 Shaders\", \"2.26GHz\", \"12GB GDDR6432GB/s\", \"TDP\" \"150W\", \"SMs\" \"58 SMs\", "
                "\"Boost Clock\" \"2.26GHz\", \"Tensor FP16-16\" \"134.5 TFLOPS\", \"Tensor FP16-32\" \"67.23 TFLOPS\"")
_r = next(r for r in rows if r["id"] == "rtx-4000-ada-laptop")
_r["bf16"] = (r1(58 * 2264 * 1024 / 1e6), WS1024.format(sm=58, mhz=2264, wp=AD_WP, pages=_h4000al)
              + "; unsettled: the database gives half this rate with FP32 accumulate (67.23)")
_r["fp8"] = (r1(58 * 2264 * 2048 / 1e6), "derived: SMs 58 x boost 2264 MHz x 2048 FLOP/clk/SM (dense FP8, twice the FP16 rate; "
             f"{AD_WP}); SM count and boost clock from the " + _h4000al)
_r["note"] = _r["note"].replace("The database lists only the base clock, so no tensor rate is catalogued: the prefill ceiling is unknown. ",
                                "The tensor rates are at the 150 W configuration's boost clock (an upper bound). ")
HMC_A2000L = ("hmc-tech.com, NVIDIA RTX A2000 8GB Laptop vs NVIDIA GeForce RTX 4060 Laptop 45W (database copy)",
              "https://hmc-tech.com/gpu/nvidia-rtx-a2000-8gb-laptop-vs-nvidia-geforce-rtx-4060-laptop-45w")
_ha2000l = page(*HMC_A2000L, "NVIDIA RTX A2000 8GB Laptop: \"2560 Shaders\", \"8GB GDDR6\", \"1687MHz\", \"TDP\" \"95W\", \"BF16\" ... "
                "\"34.55 TFLOPS Tensor\" (the 8 GB board's clock; the same GA106 with 2560 cores, 20 SMs)")
_r = next(r for r in rows if r["id"] == "rtx-a2000-laptop")
_r["bf16"] = (r1(20 * 1687 * 1024 / 1e6), WS1024.format(sm=20, mhz=1687, wp=GA_WP, pages=_ha2000l))
_r["note"] = _r["note"].replace("The database lists only the base clock, so no tensor rate is catalogued: the prefill ceiling is unknown. ",
                                "The tensor rate is at the 95 W 8 GB board's boost clock (an upper bound). ").replace(
    "An 8 GB laptop board, if any, is not catalogued.",
    "The 8 GB board (the database lists one) prints the same name; its memory speed was not read: give it with a `--catalog` entry.")
# The RTX 5000 Ada laptop part's boost clock at its highest power limit, read in another database
# copy, gives it a tensor rate (the workstation per-SM rate, as for the desktop RTX 5000 Ada).
HMC_5000AL = ("hmc-tech.com, NVIDIA GeForce RTX 5060 Laptop 50W vs NVIDIA RTX 5000 Laptop (database copy)",
              "https://hmc-tech.com/gpu/nvidia-geforce-rtx-5060-laptop-50w-vs-nvidia-rtx-5000-laptop")
_h5000al = page(*HMC_5000AL, "NVIDIA RTX 5000 Laptop: \"9728 Shaders\", \"16GB GDDR6\", \"2190MHz\", \"TDP\" \"150W\", \"Streaming Multiprocessors\" "
                "\"76 SMs\", \"1425MHz Base\" \"2190MHz\", \"Peak AI Performance\" \"1.36 POPS\" \"INT4 Tensor Sparse\" (76 x 2190 MHz x 8192)")
_r = next(r for r in rows if r["id"] == "rtx-5000-ada-laptop")
_r["bf16"] = (r1(76 * 2190 * 1024 / 1e6), WS1024.format(sm=76, mhz=2190, wp=AD_WP, pages=_h5000al))
_r["fp8"] = (r1(76 * 2190 * 2048 / 1e6), "derived: SMs 76 x boost 2190 MHz x 2048 FLOP/clk/SM (dense FP8 with FP32 accumulate, twice the "
             f"FP16 rate on workstation parts; {AD_WP}); SM count and boost clock from the " + _h5000al)
_r["note"] = _r["note"].replace("The database lists only the base clock, so no tensor rate is catalogued: the prefill ceiling is unknown. ",
                                "The tensor rates are at the 150 W configuration's boost clock (an upper bound). ")

# AMD Radeon PRO W7600 and W7500 (RDNA3, Navi 33) and the W7800's recalled bandwidth.
CT_W7600 = ("cputronic.com, AMD Radeon PRO W7600 vs AMD Radeon RX 7600 (database copy)",
            "https://cputronic.com/ru/gpu/compare/amd-radeon-pro-w7600-vs-amd-radeon-rx-7600")
_w76_row = "\"Radeon PRO W7600,Navi 33,\"Aug 3rd, 2023\",PCIe 4.0 x8,\"8 GB, GDDR6, 128 bit\",1720 MHz,2250 MHz,2048 / 128 / 64\""
_w76 = page(*CT_W7600, "Radeon PRO W7600 column: boost \"2440MHz\", compute units \"32\", \"8GB\", \"GDDR6\", \"128bit\"")
_bw, _bws = tpu_bw(_w76_row, 2250, 8, 128, "GDDR6")
card("radeon-pro-w7600", "Radeon PRO W7600 8GB", "AMD", ["W7600", "PRO W7600", "Radeon PRO W7600", "AMD Radeon PRO W7600"],
     8, tpu(_w76_row) + "; " + _w76, _bw, _bws,
     bf16=(r1(32 * 2440 * 512 / 1e6), "derived: 32 CUs x boost 2440 MHz x 512 FP16 FLOP/clk/CU (RDNA3 WMMA, twice the dual-issue FP32 "
           "rate; as for the W7800 entry) (" + _w76 + ")"),
     note="RDNA3 (Navi 33, 32 CUs): the WMMA FP16 rate is derived from the boost clock, not read as AMD's figure. Infinity Cache is "
          "not counted in the bandwidth.")
_w75_row = "\"Radeon PRO W7500,Navi 33,\"Aug 3rd, 2023\",PCIe 4.0 x8,\"8 GB, GDDR6, 128 bit\",1500 MHz,1344 MHz,1792 / 112 / 64\""
_bw, _bws = tpu_bw(_w75_row, 1344, 8, 128, "GDDR6")
card("radeon-pro-w7500", "Radeon PRO W7500 8GB", "AMD", ["W7500", "PRO W7500", "Radeon PRO W7500", "AMD Radeon PRO W7500"],
     8, tpu(_w75_row), _bw, _bws,
     note="RDNA3 (Navi 33 cut to 28 CUs, 70 W, single slot). Only the base clock was read, so no matrix rate is catalogued: the "
          "prefill ceiling is unknown. Infinity Cache is not counted in the bandwidth.")
read("radeon-pro-w7800", "bw", 576, tpu_bw("\"Radeon PRO W7800,Navi 31,\"Apr 13th, 2023\",PCIe 4.0 x16,\"32 GB, GDDR6, 256 bit\",1855 MHz,"
                                           "2250 MHz,4480 / 280 / 128\"", 2250, 8, 256, "GDDR6")[1]
     + "; the vendor's own page was not reached")

# AMD Radeon Pro WX 9100 and WX 8200 (Vega 10, HBM2). The database lists base clocks only, so
# the FP32 figures (the prefill proxy: no matrix units) are lower bounds.
VEGA_PRO = ("GCN5 (Vega 10) workstation card: no matrix units; FP16 runs packed on the shader cores at twice the FP32 rate, and the "
            "FP32 rate stands in as the prefill proxy, taken at the base clock the database lists (a lower bound).")
for id, name, gb, row, clock, sp, mhz in [
    ("radeon-pro-wx-9100", "Radeon Pro WX 9100 16GB", 16,
     "\"Radeon Pro WX 9100,Vega 10,\"Jul 10th, 2017\",PCIe 3.0 x16,\"16 GB, HBM2, 2048 bit\",1200 MHz,945 MHz,4096 / 256 / 64\"", 945, 4096, 1200),
    ("radeon-pro-wx-8200", "Radeon Pro WX 8200 8GB", 8,
     "\"Radeon Pro WX 8200,Vega 10,\"Aug 13th, 2018\",PCIe 3.0 x16,\"8 GB, HBM2, 2048 bit\",1200 MHz,1000 MHz,3584 / 224 / 64\"", 1000, 3584, 1200),
]:
    short = name.split()[2] + " " + name.split()[3]
    _bw, _bws = tpu_bw(row, clock, 2, 2048, "HBM2")
    card(id, name, "AMD", [short, "Pro " + short, "Radeon Pro " + short, "AMD Radeon Pro " + short], gb, tpu(row), _bw, _bws,
         fp32=(r1(sp * mhz * 2 / 1e6), f"derived: {sp} stream processors x base {mhz} MHz x 2 FLOP/clk (" + tpu(row) + ")"),
         note=VEGA_PRO)

# AMD Radeon Pro V340 (two Vega 10 GPUs on one board). The database rows are read as per GPU (a
# 2048-bit HBM2 bus is one Vega 10's): 8 GB per GPU on the 16 GB board, 16 GB on the 32 GB board.
for gb, row in [(16, "\"Radeon Pro V340 16 GB,Vega 10,\"Aug 26th, 2018\",PCIe 3.0 x16,\"16 GB, HBM2, 2048 bit\",852 MHz,945 MHz,3584 / 224 / 64\""),
                (8, "\"Radeon Pro V340 8 GB,Vega 10,\"Aug 26th, 2018\",PCIe 3.0 x16,\"8 GB, HBM2, 2048 bit\",852 MHz,945 MHz,3584 / 224 / 64\"")]:
    _bw, _bws = tpu_bw(row, 945, 2, 2048, "HBM2")
    card(f"radeon-pro-v340-{gb}gb", f"Radeon Pro V340 (one of two GPUs) {gb}GB", "AMD",
         ["Radeon Pro V340", "V340", "Pro V340", "AMD Radeon Pro V340", f"Radeon Pro V340 {gb}GB", f"V340 {gb}GB"],
         gb, unread(tpu(row)) + f" (read as one GPU's: a 2048-bit HBM2 bus is one Vega 10's; the board carries two, {2 * gb} GB in "
         "all) [read]", _bw, _bws,
         fp32=(r1(3584 * 852 * 2 / 1e6), "derived: 3584 stream processors x base 852 MHz x 2 FLOP/clk (" + tpu(row) + ")"),
         note=VEGA_PRO + f" The V340 board carries two Vega 10 GPUs ({gb} GB each, 2048-bit HBM2 each); each shows as its own device and "
              f"the figures are one GPU's: count them as two cards (`--gpus 2`). Both boards print one name: give the size per GPU "
              f"(`Radeon Pro V340 {gb}GB`).")

# Intel Data Center GPU Flex 170 and Flex 140 (Alchemist). The Flex 140 board carries two GPUs;
# the entry is one of them, as the system sees it.
FLEX = "Alchemist (Xe-HPG) datacenter card: XMX matrix rate not catalogued, the FP32 vector rate stands in, so the prefill ceiling is conservative."
_f170_row = "\"Data Center GPU Flex 170,DG2-512,\"Aug 24th, 2022\",PCIe 4.0 x16,\"16 GB, GDDR6, 256 bit\",1950 MHz,2000 MHz,4096 / 256 / 128\""
_bw, _bws = tpu_bw(_f170_row, 2000, 8, 256, "GDDR6")
card("flex-170", "Data Center GPU Flex 170 16GB", "Intel", ["Flex 170", "GPU Flex 170", "Data Center GPU Flex 170", "Intel Data Center GPU Flex 170"],
     16, tpu(_f170_row), _bw, _bws,
     fp32=(r1(4096 * 1950 * 2 / 1e6), "derived: 4096 FP32 lanes (32 Xe-cores) x 1950 MHz x 2 FLOP/clk (" + tpu(_f170_row) + ")"),
     note=FLEX + " ACM-G10 with 32 Xe-cores, 150 W, passive. The bandwidth follows the database row's 2000 MHz (16 Gbps) memory "
          "clock; Intel's own spec page was not read and may list faster memory, so the decode ceiling may be low.")
_f140_row = "\"Data Center GPU Flex 140,DG2-128,\"Aug 24th, 2022\",PCIe 4.0 x8,\"6 GB, GDDR6, 96 bit\",1600 MHz,1937 MHz,1024 / 64 / 32\""
_bw, _bws = tpu_bw(_f140_row, 1937, 8, 96, "GDDR6")
card("flex-140", "Data Center GPU Flex 140 (one of two GPUs) 6GB", "Intel",
     ["Flex 140", "GPU Flex 140", "Data Center GPU Flex 140", "Intel Data Center GPU Flex 140"],
     6, tpu(_f140_row) + " (one GPU: the board has two, 12 GB in all)", _bw, _bws,
     fp32=(r1(1024 * 1600 * 2 / 1e6), "derived: 1024 FP32 lanes (8 Xe-cores) x 1600 MHz x 2 FLOP/clk (" + tpu(_f140_row) + ")"),
     note=FLEX + " The Flex 140 board carries two ACM-G11 GPUs (8 Xe-cores each, 6 GB on 96 bits each); each shows as its own "
          "device, and the figures are one GPU's. Count them as two cards (`--gpus 2`) to split a model across both.")

# Recalled figures read in the same database copy.
_1660s_row = ("\"GeForce GTX 1660 SUPER,TU116,\"Oct 29th, 2019\",PCIe 3.0 x16,\"6 GB, GDDR6, 192 bit\",1530 MHz,1750 MHz,"
              "1408 / 88 / 48\"")
NOT_REACHED = " (the vendor's own page was not reached) [read]"
read("gtx-1660-super", "mem", 6, unread(tpu(_1660s_row)) + NOT_REACHED)
_3080ti_row = "\"GeForce RTX 3080 Ti,GA102,\"May 31st, 2021\",PCIe 4.0 x16,\"12 GB, GDDR6X, 384 bit\",1365 MHz,1188 MHz,10240 / 320 / 112\""
read("rtx-3080-ti", "mem", 12, unread(tpu(_3080ti_row)) + NOT_REACHED)
read("rtx-3080-ti", "bw", 912, tpu_bw(_3080ti_row, 1188, 16, 384, "GDDR6X")[1].replace("= 912.4 GB/s", "= 912.4 GB/s, 912 as catalogued")
     + "; the vendor's own page was not reached")
read("rtx-3080-ti", "bf16", r1(80 * 1665 * 512 / 1e6), TC512.format(sm=80, mhz=1665, wp=GA_WP,
     pages=cut(tpu(_3080ti_row)) + " (10240 cores at 128 per SM: 80 SMs) [read]; the 1665 MHz boost clock from the " + GF30))

# (end of the fourteenth pass)

# --- fifteenth pass: the last recalled tensor rates, read or checked against database copies -----
# The Hugging Face hardware list ("Approximate value, in FP16 whenever possible for GPUs ... the GPU
# values are from techpowerup.com") is a database copy; its GitHub source is read at a fixed commit.
HF_NV = ("Hugging Face hardware list (GPU values from techpowerup.com; database copy), read in its source: "
         "github.com/huggingface/huggingface.js packages/tasks/src/hardware-nvidia.ts",
         "https://github.com/huggingface/huggingface.js/blob/8f4490cd5937ddb9819e18b0dabc196ea874001f/packages/tasks/src/hardware-nvidia.ts")

# GeForce RTX 3080 Ti: the boost clock follows from the database's FP16 (= FP32 on GA102) rate and
# the core count already read: 34.1 TFLOPS / (10240 x 2 FLOP/clk) = 1665 MHz.
_hf3080ti = page(*HF_NV, "\"RTX 3080 Ti\": { tflops: 34.1, memory: [12], computeCapability: 8.6, ... }: 34.1 / (10240 cores x 2) = "
                 "1665 MHz (1663 to 1667 MHz within the rounding)")
read("rtx-3080-ti", "bf16", r1(80 * 1665 * 512 / 1e6), TC512.format(sm=80, mhz=1665, wp=GA_WP,
     pages=cut(tpu(_3080ti_row)) + " (10240 cores at 128 per SM: 80 SMs) [read]; the 1665 MHz boost clock from the " + cut(_hf3080ti)
     + " [read] (the figure NVIDIA's GeForce RTX 30-series spec pages give, https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/, "
       "not re-read); the result is twice the database's 34.1 TFLOPS vector rate, as for every GA102 GeForce"))

# RTX 4000 Ada: the database's FP32 rate confirms the 2175 MHz boost clock of the clock-derived
# alternative; NVIDIA's 327.6 (about 1.67 GHz) stays, as before, until its datasheet is re-read.
_hf4000ada = ("; " + cut(page(*HF_NV, "\"RTX 4000 Ada\": { tflops: 26.7, memory: [20], computeCapability: 8.9, ... }")) + ": 6144 cores x 2 x "
              "2175 MHz = 26.7 TFLOPS, the same boost clock.")
for k in ("bf16", "fp8"):
    v, src = READ[("rtx-4000-ada", k)]
    assert " The datasheet figure is kept" in src
    read("rtx-4000-ada", k, v, src.replace(" The datasheet figure is kept", _hf4000ada + " The datasheet figure is kept"))

# RTX PRO 4000 / 4500 Blackwell: database copies derive their FP4 rates from a 2617 MHz boost
# clock and so give more than NVIDIA's AI TOPS; NVIDIA's figures are kept (recalled).
HMC_PRO4500 = ("hmc-tech.com, NVIDIA GeForce RTX 4090 vs NVIDIA RTX PRO 4500 Blackwell (database copy)",
               "https://hmc-tech.com/gpus/nvidia-geforce-rtx-4090-vs-nvidia-rtx-pro-4500-blackwell")
CPT_PRO4000 = ("cputronic.com, NVIDIA RTX PRO 4000 Blackwell vs NVIDIA RTX PRO 2000 Blackwell (database copy)",
               "https://cputronic.com/gpu/compare/nvidia-rtx-pro-4000-blackwell-vs-nvidia-rtx-pro-2000-blackwell")
_pro_alt = {
    "rtx-pro-4500-blackwell": "; unsettled: " + cut(page(*HMC_PRO4500, "RTX PRO 4500 Blackwell: \"10,496 Shaders\", \"2.62GHz\", \"Peak OPS\" \"1.76 PFLOPS\" "
                              "\"FP4 Tensor Sparse\", \"SMs\" \"82 SMs\"")) + " [read]: 82 SMs x 2617 MHz; NVIDIA's 1687 corresponds to about "
                              "2.51 GHz and is kept",
    "rtx-pro-4000-blackwell": "; unsettled: " + cut(page(*CPT_PRO4000, "RTX PRO 4000 Blackwell: \"2617 MHz\" \"Boost Clock\", \"8960\" shading units "
                              "(70 SMs)")) + " [read]: 70 SMs x 2617 MHz x 8192 FLOP/clk/SM gives 1500.7 FP4 with sparsity; NVIDIA's 1247 "
                              "corresponds to about 2.17 GHz and is kept",
}
for _id, _alt in _pro_alt.items():
    _r = next(r for r in rows if r["id"] == _id)
    for k in ("bf16", "fp8", "fp4"):
        _r[k] = (_r[k][0], _r[k][1] + _alt)

# AMD Radeon RX 6750 GRE: left out. The 12 GB board's figures were read (cputronic.com, RX 6750
# GRE vs RX 7600, database copy: 12GB, 192-bit, 432.0 GB/s), but the 10 GB board (160-bit, less
# bandwidth) shares the name and no page for it was found; a lone 12 GB entry would answer to the
# bare name and hand a 10 GB owner the wrong bandwidth, so neither is catalogued.

# (end of the fifteenth pass)

# --- emit ------------------------------------------------------------------------------------------
def q(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'

def num(v):
    return repr(int(v)) if float(v).is_integer() else repr(v)

out = []
for r in rows:
    al = []
    for a in r["aliases"]:
        if a not in al and a != r["name"]:
            al.append(a)
    out.append("[[gpu]]")
    out.append(f"id = {q(r['id'])}")
    out.append(f"name = {q(r['name'])}")
    out.append(f"vendor = {q(r['vendor'])}")
    out.append("aliases = [" + ", ".join(q(a) for a in al) + "]")
    for key, field in [("mem", "memory_gib"), ("bw", "bandwidth_gbps"), ("bf16", "bf16_tflops"),
                       ("fp8", "fp8_tflops"), ("fp4", "fp4_tflops"), ("fp32", "fp32_tflops")]:
        v, s = r[key]
        if (r["id"], key) in READ:
            assert v is not None, (r["id"], key)
            v, s = READ.pop((r["id"], key))
        if v is not None:
            out.append(f"{field} = {{ value = {num(v)}, source = {q(s)} }}")
    if r["note"]:
        out.append(f"note = {q(r['note'])}")
    out.append("")
assert not READ, f"READ names figures no row has: {sorted(READ)}"
import sys
sys.stderr.write(f"{len(rows)} entries\n")
print("\n".join(out))
