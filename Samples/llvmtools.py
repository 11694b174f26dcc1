"""llvmtools.py -- the two LLVM tool calls the sample report scripts share.

tool() runs an LLVM command line tool and stops the generator with its message when it fails;
symbolize() asks llvm-symbolizer-14 for the inline chain at one file address of a dSYM, which is
the reference answer the expected tables record.
"""

import json
import subprocess
import sys


def tool(*args):
    """Runs an LLVM tool and returns its standard output; exits with its message on failure."""
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("make_reports.py: %s failed: %s" % (args[0], done.stderr.strip()))
    return done.stdout


def symbolize(image, vmaddr):
    """llvm-symbolizer-14's inline chain for a file address: [(function, file, line, column)]."""
    out = tool("llvm-symbolizer-14", "--inlines", "--output-style=JSON",
               "--default-arch=" + image.arch, "--obj=" + image.dsym, "0x%x" % vmaddr)
    frames = json.loads(out)[0].get("Symbol", [])
    return [(f["FunctionName"], f["FileName"], f["Line"], f["Column"]) for f in frames
            if f.get("FunctionName")]
