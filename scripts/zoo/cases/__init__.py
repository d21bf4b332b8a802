"""The zoo's cases: one module per case (``build(size)``) and its ``.expected.json`` beside it."""
