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
    ("quadro-p6000", "Quadro P6000", ["P6000"], 24, 432, "432 GB/s", 12.6),
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
mi("mi50-16gb", "Instinct MI50 16GB", ["MI50", "MI50 16GB", "Radeon Instinct MI50"], 16, 1024, note=VEGA,
   fp32=(13.3, "13.3 TFLOPS FP32 (26.5 FP16 packed)"))
mi("mi50-32gb", "Instinct MI50 32GB", ["MI50", "MI50 32GB", "Radeon Instinct MI50 32GB"], 32, 1024, note=VEGA,
   fp32=(13.3, "13.3 TFLOPS FP32 (26.5 FP16 packed)"))
mi("mi60", "Instinct MI60 32GB", ["MI60", "Radeon Instinct MI60"], 32, 1024, note=VEGA,
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
]:
    s = APPLE.format(url=url)
    kw = {}
    if fp32 is not None:
        kw = dict(fp32=fp32, fp32_src=f"{s}: {fp32} TFLOPS GPU (FP32; no matrix units, FP16 at the same rate)")
    gpu(i, n, "Apple", al, mem, f"{s}: up to {mem} GB unified memory", bw, f"{s}: {bw} GB/s unified memory bandwidth",
        note=AP_NOTE + ("" if fp32 else " Apple publishes no TFLOPS figure for this chip: the prefill ceiling is unknown."), **kw)

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
        if v is not None:
            out.append(f"{field} = {{ value = {num(v)}, source = {q(s)} }}")
    if r["note"]:
        out.append(f"note = {q(r['note'])}")
    out.append("")
import sys
sys.stderr.write(f"{len(rows)} entries\n")
print("\n".join(out))
