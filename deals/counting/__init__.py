"""Exact counts: one partnership, both partnerships crossed, column products, length matrices, honour placements; the symmetries, feasibility proofs, tables and caches they share."""
