"""giacomazzi: the figures."""

from __future__ import annotations

from afsim.reproduce.core import Figure
from afsim.reproduce.giacomazzi.paper import R_PHB2_KBPS

FIGURES = (
    Figure("fig7_throughput", "Fig. 7: throughput versus number of AF sources (scenario 1)",
           "table2", "throughput_kbps", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="throughput per source (kbit/s)", reference=(R_PHB2_KBPS, "r = 1000 kbit/s"),
           series_name="α"),
    Figure("fig8_ros", "Fig. 8: Respect of Service versus number of AF sources (scenario 1)",
           "table2", "ros_pct", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="Respect of Service (%)", series_name="α"),
    Figure("fig7_throughput_periodic",
           "Fig. 7 under the variant 'periodic token grid' (experiment table2@periodic)",
           "table2@periodic", "throughput_kbps", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="throughput per source (kbit/s)", reference=(R_PHB2_KBPS, "r = 1000 kbit/s"),
           series_name="α"),
    Figure("fig8_ros_periodic",
           "Fig. 8 under the variant 'periodic token grid' (experiment table2@periodic)",
           "table2@periodic", "ros_pct", x="n_af", series="alpha", xlabel="N_AF",
           ylabel="Respect of Service (%)", series_name="α"),
)
