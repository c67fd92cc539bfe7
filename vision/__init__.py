"""The camera side of the Rune Table Companion: reads dice (and cards) on the tray.

Runs as its own process (``runes-vision``), so the heavy image work never stalls the
touchscreen. It publishes settled readings over MQTT; the companion turns them into actions.
"""

import os

# One frame is read on one core; BLAS threads (NumPy's matrix products) only fight over the
# Pi's cores with the camera and the UI. Set before NumPy loads, when this package comes first.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
