//! Pure math and catalogs: ceilings, ridge, MoE, RAM-bound, duty cycle, cost.
