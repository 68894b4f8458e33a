"""Training of the card recogniser's models from rendered data (not run in CI, not imported at run time).

Needs PyTorch (training only) in a separate environment, e.g.::

    python -m venv /work/trainvenv
    /work/trainvenv/bin/pip install torch==2.13.0 onnx numpy opencv-python-headless pillow

Steps (each a module with a ``main``; see ``python -m vision.train.<step> --help``)::

    scenes     render train-pool scenes with per-item geometry (detector data, realistic crops)
    crops      build classifier crops: canonical faces with heavy augmentation + crops cut from scenes
               (at the true outlines, or with --at-detections where the recogniser itself cuts them)
    train_cls  train the crop classifier, calibrate its temperature, export ONNX
    train_det  train the card-face detector (face mask, centre votes, orientation, size), export ONNX
"""
