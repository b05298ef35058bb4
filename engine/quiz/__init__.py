"""The classic Quiz (docs/quiz.md): every player answers every question of the chosen packs."""
