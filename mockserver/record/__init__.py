"""Record & replay: capture real traffic into scenario files, import recordings users have.

Recording proxies a client's requests to an upstream and captures each exchange
(:mod:`mockserver.record.exchange`); what is captured is written as a scenario a user can read
and edit. Nothing here decides matching at replay time: the scenario matcher does.
"""
