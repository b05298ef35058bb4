"""Seizing the Crown: five houses, loyalty and treason, hidden prestige (docs/rules/crown.md)."""
