"""Speed and memory figures, printed by ``python -m benchmarks.run``."""
