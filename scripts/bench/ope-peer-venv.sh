#!/usr/bin/env bash
# Builds the Python that scripts/bench/ope.sh runs obp in (PEER_PYTHON):
# a venv with obp 0.5.7, unmodified, and what its `obp.ope` import chain
# really executes. obp 0.5.7 pins Python < 3.11, torch 1.12 and
# scikit-learn 1.1.3, none of which install on this machine's Python 3.11
# together; so obp is installed without its pins (`--no-deps`,
# `--ignore-requires-python`), then the pinned versions that have
# wheels for the running Python (numpy, pandas, scikit-learn, scipy),
# and torch's current CPU-capable wheel from PyPI (obp/utils.py imports
# torch at the top of the module; torch's wheel brings its CUDA runtime
# libraries as dependencies, some 3 GB, needed to import it even on a
# machine without a GPU). pyarrow is for scripts/bench/ope-logs.py. pip
# then lists obp's pins left unmet (torch 1.12, Pillow, PyYAML, pingouin
# and pyieoe, which obp.ope does not import): expected; the last step
# imports obp.ope's estimators, and fails if they do not import. About
# 10 minutes and 5 GB.
#
#   scripts/bench/ope-peer-venv.sh [DIR]    # default target/ope-peer-venv
#   PEER_PYTHON=DIR/bin/python scripts/bench/ope.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=${1:-${CARGO_TARGET_DIR:-target}/ope-peer-venv}
python=${PYTHON:-python3}
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip install --quiet)
"${pip[@]}" --no-deps --ignore-requires-python obp==0.5.7
# seaborn 0.11 needs matplotlib's register_cmap (gone in 3.9); matplotlib
# 3.7 (with contourpy < 1.2) and pyarrow 17 still take numpy 1.23.
"${pip[@]}" numpy==1.23.5 pandas==1.5.2 scikit-learn==1.1.3 scipy==1.9.3 \
    'tqdm>=4.62.2,<5' 'mypy-extensions>=0.4.3,<0.5' PyYAML \
    'seaborn>=0.11.2,<0.12' matplotlib==3.7.5 'contourpy<1.2' pyarrow==17.0.0 torch
"$venv/bin/python" - <<'PY'
import numpy, obp, sklearn, torch
from obp.ope import DoublyRobust, InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting, SlateStandardIPS
print(f"PEER_PYTHON ready: obp {obp.__version__}, numpy {numpy.__version__}, "
      f"scikit-learn {sklearn.__version__}, torch {torch.__version__}")
PY
echo "PEER_PYTHON=$venv/bin/python"
