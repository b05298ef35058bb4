"""Question packs: formats, validation and import (issue [4]); nothing here yet."""
