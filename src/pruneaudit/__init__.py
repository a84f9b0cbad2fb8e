"""pruneaudit: audit how pruning and quantization hurt some classes, writers and examples."""

__version__ = "0.1.0"
