"""Example tools and agents used by the demo suite and the example frozen tests."""
