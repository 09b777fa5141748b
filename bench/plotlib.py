"""bench/plotlib.py -- matplotlib for the bench's charts, without a display.

Debian's python3-matplotlib (bench/setup.sh installs it) belongs to the
system's /usr/bin/python3: when another python3 comes first on PATH and has
no matplotlib, the script is run again under /usr/bin/python3."""
import os
import sys

try:
    import matplotlib
except ImportError:
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("%s: needs matplotlib: sh bench/setup.sh installs python3-matplotlib" % sys.argv[0])
matplotlib.use("svg")
matplotlib.rcParams["svg.hashsalt"] = "mini-bench"     # the same csv gives the same file
matplotlib.rcParams["svg.fonttype"] = "none"           # text stays text: small files
import matplotlib.pyplot as plt  # noqa: E402,F401
import matplotlib.ticker  # noqa: E402,F401
