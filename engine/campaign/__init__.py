"""The Short Campaign: a Triviador-style territory war for three players (../shared/rules/campaign.md)."""
