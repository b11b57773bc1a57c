"""``afsim live``: the scenario's hosts as Linux network namespaces with real TCP/UDP, its
routers and links as afsim-core's own models in one forwarder (crate afsim-live), against the
wall clock. ``run.live`` runs one; ``netns.cleanup`` removes what a killed run left;
``report.print_live`` prints the tables. See docs/architecture.md, "The live forwarder".
"""
