"""``throneroom bench``: latency, capacity, fairness and recovery benchmarks against the real server.

The server runs in its own process on loopback (``bench.server``); simulated phones and TVs (python-socketio
clients, ``bench.phones``) run in several worker processes; each scenario (``bench.scenarios``) prints a table
(``bench.report``). docs/bench.md explains every figure.
"""
