"""The Short Campaign: a Triviador-style territory war for three players (docs/rules/campaign.md)."""
