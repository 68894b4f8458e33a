"""Reading the table: frame sources, calibration, the stabiliser, recognition, and the
synthetic table renderer used by the tests, the benchmarks, training and the `sim` camera.

Vision reports what it sees and knows no rules: it imports neither `companion` nor `web`.
"""
