# MicroPython runs main.py at boot. On the unix port:
#   MICROPYPATH=firmware:<umqtt dir> micropython firmware/main.py [settings.json]
from tracker.app import main

main()
