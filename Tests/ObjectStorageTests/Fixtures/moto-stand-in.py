#!/usr/bin/env python3
"""moto_server for one test process: `moto-stand-in.py PARENT_PID PORT`.

Runs moto's in-memory S3 stand-in (PyPI moto[server]) on 127.0.0.1:PORT and exits as soon as
PARENT_PID is gone, so a test run that ends or crashes leaves no server behind (moto_server itself
ignores SIGTERM). moto does not check signatures.
"""
import os
import sys
import threading
import time

from moto.server import main


def watch(parent):
    while True:
        try:
            os.kill(parent, 0)
        except OSError:
            os._exit(0)
        time.sleep(0.5)


threading.Thread(target=watch, args=(int(sys.argv[1]),), daemon=True).start()
main(["-H", "127.0.0.1", "-p", sys.argv[2]])
