"""moto's DynamoDB, serving one request at a time, for Switchboard's tests.

Stock moto_server answers requests on many threads without locking its in-memory tables, so two
conditional writes can both pass their condition, and a cancelled transaction can put back an
old copy of a table over other clients' writes. Every request here runs under one lock, which is
what DynamoDB's own per-item serialisation guarantees to the engine. Prints "port=<n>" once it
listens (on 127.0.0.1, the port the operating system chose), then serves until killed.
"""

import sys
import threading

from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

app = DomainDispatcherApplication(create_backend_app)
lock = threading.Lock()


def serial(environ, start_response):
    with lock:
        # the whole answer is made inside the lock: moto builds it from the tables it just changed
        return [b"".join(app(environ, start_response))]


server = make_server("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0, serial,
                     threaded=True)
print("port=%d" % server.port, flush=True)
server.serve_forever()
