"""Seizing the Crown: five houses, loyalty and treason, hidden prestige (../shared/rules/crown.md)."""
