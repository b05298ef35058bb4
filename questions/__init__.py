"""Question packs: the model and its checks, the file formats, the database tables and the library a room draws
from (docs/packs.md)."""
