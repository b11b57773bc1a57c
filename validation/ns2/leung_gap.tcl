# validation/ns2/leung_gap.py's copy of python/afsim/ns2/leung.tcl (the twin), with switches to
# simplify it for the bisection of docs/validation.md ("Leung & Muppala's topology 2 against
# ns-2: the short-RTT flows"): core=dsred (the twin's) | droptail | red (one RED curve, red.cc);
# and per-flow counters of window cuts. Everything else is leung.tcl's. Its own arguments:
#   core        dsred (the twin's RIO), droptail, or red (red.cc with the IN curve)  default dsred
#   starts      each flow's start time, seconds ("" = all at 0)                      default ""
#   evfile      a file for the agents' full event trace (TIMEOUT, SLOW_START, ...)    default none
#   cwndfid     a flow id whose cwnd_, ssthresh_, t_seqno_, ack_ ... are traced       default -1
#   cwndfile    where that trace goes                                                  default /tmp/cwnd.tr
# and extra output: CEMARKS / BOTTLEDEP (CE-marked and all departures of R1 -> R2 per flow) and
# per-flow cwnd_cuts (ncwndcuts_), cwnd_cuts_ecn (ncwndcuts1_), rexmit_events (nrexmit_).
#
# ns-2.35 twin of afsim's Leung & Muppala scenarios (python/afsim/scenarios/leung/topology1.toml
# and topology2.toml): N TCP flows, each metered at E1 by its own TSW tagger (in profile ->
# code point 10 = AF11, out of profile -> 12 = AF12), over one RIO bottleneck R1 -> R2.
#
#   s_i ─access_rate, access_i─ e1 ─100Mb,1ms,dsRED/edge─ r1 ═bottleneck,10ms,dsRED/core═ r2 ─100Mb,1ms─ e2 ─100Mb,0ms─ d_i
#
# The values are the afsim scenario's, passed by afsim.reproduce (leung.py, `ns2_args`) from the
# same parameters the afsim run gets; the topology (which links, their fixed delays and rates,
# the 500-packet queues, the RIO curves) is the scenario file's, written here once. The
# mechanisms ns-2 does not have (mark-front, mark-random, the OUT Marking Scheme, the Throughput
# Sustaining Scheme, forced drops of ECN-capable packets) are refused by the caller, not here.
#
# Usage (key=value; every argument is optional):
#   ns leung.tcl seed=1 duration=60 bottleneck=16Mb targets="1000000 4000000 2000000" \
#       access="53ms 53ms 53ms" ecn=1
#
#   seed        seed of ns-2's default RNG (TSW2CM's and RIO's coin flips); > 0       default 1
#   duration    simulated seconds (§3.1: 60)                                          default 60
#   bottleneck  R1 -> R2 rate, an ns-2 bandwidth                                       default 16Mb
#   targets     each flow's TSW2CM CIR, bit/s (Table 1; topology 2: ten of 1 Mb/s)    default topology 1's
#   access      each flow's access-link delay S_i -> E1                                 default "53ms" x 3
#   access_rate rate of the access links                                                default 10Mb
#   tsw_window  TSW2CM's winLen, seconds (dsPolicy.cc's default 1.0)                   default 1.0
#   in, out     RIO curves "min_th max_th max_p" of IN (AF11) and OUT (AF12)           default §3.1's
#   w_q         RIO's averaging weight q_w (configQ's sixth value), both precedences   default 0.1
#   mode        setMREDMode: RIO-C (coupled) or RIO-D (decoupled)                       default RIO-C
#   limit       afsim's limit of every queue, packets (§3.1: 500): dsRED's queue-limit is
#               it (dsredq.cc holds limit), DropTail's is it + 1 (drop-tail.cc holds
#               limit_ - 1; docs/validation.md)                                     default 500
#   mps         meanPktSize of the dsRED queues, bytes                                  default 1000
#   ecn         1: ECN-capable TCP and a marking RIO (Queue/dsRED ecn_: dsredq.cc marks an ECT
#               arrival where it would drop it, early or beyond max_th)                default 1
#   variant     reno, newreno or sack (common.tcl tcp_agents)                           default reno
#   payload     TCP payload bytes (packetSize_; + 40 B of headers = the IP size)       default 960
#   window      window_, packets                                                        default 500
#   iw          windowInit_, packets                                                    default 1
#   lt          singledup_ (limited transmit)                                           default 0
#   tick        tcpTick_, seconds                                                       default 0.01
#
# Output (stdout): one line "NS2 {...}" with the run's configuration and per-code-point counters
# of the bottleneck, then "DELIVERED b0 b1 ..." (IP bytes each destination received, from a
# trace of the E2 -> D_i links through awk) and "TIMEOUTS n0 n1 ..." (every retransmission
# timeout, common.tcl timeout_trace). afsim/ns2/__init__.py reads the three into afsim's table
# shapes.

source [file join [file dirname [info script]] common.tcl]

array set opt {
    seed 1 duration 60 bottleneck 16Mb targets "1000000 4000000 2000000"
    access "53ms 53ms 53ms" access_rate 10Mb tsw_window 1.0
    in "100 150 0.02" out "50 100 0.1" w_q 0.1 mode RIO-C limit 500 mps 1000
    ecn 1 variant reno payload 960 window 500 iw 1 lt 0 tick 0.01
    core dsred starts "" evfile "" cwndfid -1 cwndfile /tmp/cwnd.tr
}
parse_options leung.tcl opt $argv
set N [llength $opt(targets)]
if {[llength $opt(access)] != $N} { puts stderr "leung.tcl: access needs $N delays"; exit 2 }
if {$opt(seed) <= 0} { puts stderr "leung.tcl: seed must be > 0 (0 = seeded from the clock)"; exit 2 }
set T [expr {double($opt(duration))}]
set AGENTS [tcp_agents leung.tcl $opt(variant)]
set CP_IN 10
set CP_OUT 12

# One-way TCP as the afsim scenario's flows (preset "ns2"): see common.tcl.
tcp_defaults $opt(payload) $opt(window) $opt(iw) $opt(lt) $opt(tick) $opt(ecn)

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $opt(seed)

set e1 [$ns node]
set r1 [$ns node]
set r2 [$ns node]
set e2 [$ns node]
for {set i 0} {$i < $N} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
}

# E1 -> R1 carries the marker (Queue/dsRED/edge, never congested at 100 Mb/s); R1 -> R2 is the
# bottleneck's RIO (Queue/dsRED/core); the ways back carry only ACKs.
$ns simplex-link $e1 $r1 100Mb 1ms dsRED/edge
$ns simplex-link $r1 $e1 100Mb 1ms DropTail
if {$opt(core) == "dsred"} {
    $ns simplex-link $r1 $r2 $opt(bottleneck) 10ms dsRED/core
} elseif {$opt(core) == "droptail"} {
    $ns simplex-link $r1 $r2 $opt(bottleneck) 10ms DropTail
} else {
    $ns simplex-link $r1 $r2 $opt(bottleneck) 10ms RED
}
$ns simplex-link $r2 $r1 $opt(bottleneck) 10ms DropTail
$ns duplex-link $r2 $e2 100Mb 1ms DropTail
set DT [expr {$opt(limit) + 1}]
$ns queue-limit $e1 $r1 $opt(limit)
$ns queue-limit $r1 $r2 [expr {$opt(core) == "droptail" ? $DT : $opt(limit)}]
foreach {a b} [list $r1 $e1 $r2 $r1 $r2 $e2 $e2 $r2] { $ns queue-limit $a $b $DT }
for {set i 0} {$i < $N} {incr i} {
    $ns duplex-link $s($i) $e1 $opt(access_rate) [lindex $opt(access) $i] DropTail
    $ns duplex-link $e2 $d($i) 100Mb 0ms DropTail
    foreach {a b} [list $s($i) $e1 $e1 $s($i) $e2 $d($i) $d($i) $e2] { $ns queue-limit $a $b $DT }
}

set qE [[$ns link $e1 $r1] queue]
set qC [[$ns link $r1 $r2] queue]
# The edge: one TSW2CM tagger per source (dsPolicy.cc: addPolicyEntry src dst TSW2CM cp CIR
# winLen; a packet above the CIR is downgraded with probability (avgRate - CIR) / avgRate).
dsred_in_out $qE $opt(mps) RIO-C
for {set i 0} {$i < $N} {incr i} {
    $qE addPolicyEntry [$s($i) id] [$d($i) id] TSW2CM $CP_IN [lindex $opt(targets) $i] $opt(tsw_window)
}
$qE addPolicerEntry TSW2CM $CP_IN $CP_OUT
$qE configQ 0 0 [expr {$opt(limit) - 2}] [expr {$opt(limit) - 1}] 0.02
$qE configQ 0 1 [expr {$opt(limit) - 2}] [expr {$opt(limit) - 1}] 0.02
if {$opt(core) == "dsred"} {
# The core: §3.1's RIO, IN [100,150,0.02,0.1] and OUT [50,100,0.1,0.1] (configQ queue prec
# min_th max_th max_p q_w).
dsred_in_out $qC $opt(mps) $opt(mode)
$qC set ecn_ $opt(ecn)
eval $qC configQ 0 0 $opt(in) $opt(w_q)
eval $qC configQ 0 1 $opt(out) $opt(w_q)
} elseif {$opt(core) == "red"} {
    lassign $opt(in) mn mx mp
    $qC set thresh_ $mn
    $qC set maxthresh_ $mx
    $qC set linterm_ [expr {1.0 / $mp}]
    $qC set q_weight_ $opt(w_q)
    $qC set mean_pktsize_ $opt(mps)
    $qC set gentle_ false
    $qC set wait_ false
    $qC set setbit_ $opt(ecn)
    $qC set bytes_ false
    $qC set queue_in_bytes_ false
    $qC set adaptive_ 0
}

# IP bytes received by each destination: "r" events of the E2 -> D_i links, by flow id.
set awk {
    $1 == "r" { b[$8] += $6 }
    END { printf "DELIVERED"; for (i = 0; i < N; i++) printf " %d", b[i] + 0; printf "\n" }
}
set dlvchan [open "|awk -v N=$N {$awk}" w]
for {set i 0} {$i < $N} {incr i} { $ns trace-queue $e2 $d($i) $dlvchan }
lassign [timeout_trace $N] evchan evtrace
if {$opt(evfile) != ""} {
    # every event of the agents (TIMEOUT, ...) as ns-2 writes it, for one run's inspection
    set evchan [open $opt(evfile) w]
    set evtrace [new BaseTrace/Event]
    $evtrace attach $evchan
}
# CE marks per flow at the bottleneck: departures ("-") of R1 -> R2 whose flags (field 7) have
# "E" (hdr_flags ce_, trace.cc) in fifth place, by flow id; and departures per flow.
set mawk {
    $1 == "-" && $5 == "tcp" { n[$8]++; if (substr($7, 5, 1) == "E") m[$8]++ }
    END {
        printf "CEMARKS"; for (i = 0; i < N; i++) printf " %d", m[i] + 0; printf "\n"
        printf "BOTTLEDEP"; for (i = 0; i < N; i++) printf " %d", n[i] + 0; printf "\n"
    }
}
set markchan [open "|awk -v N=$N {$mawk}" w]
$ns trace-queue $r1 $r2 $markchan

for {set i 0} {$i < $N} {incr i} {
    set st [expr {$opt(starts) == "" ? 0.0 : [lindex $opt(starts) $i]}]
    lassign [greedy_flow $ns $s($i) $d($i) $AGENTS $i $st $evtrace] tcp($i) sink($i)
}

if {$opt(cwndfid) >= 0} {
    # one flow's cwnd_, ssthresh_, t_seqno_ and ack_ as ns-2 traces them, for one run's inspection
    set cwchan [open $opt(cwndfile) w]
    set tt $tcp($opt(cwndfid))
    $tt attach $cwchan
    foreach v {cwnd_ ssthresh_ t_seqno_ ack_ rtt_ srtt_ rto_ backoff_} { $tt trace $v }
}

proc cpstats {q cp} {
    global opt
    if {$opt(core) != "dsred"} { return {{"arrivals": 0, "early_drops": 0, "other_drops": 0}} }
    # dsREDQueue getStat per code point, counted at arrival: pkts, edrops (random early),
    # drops (PKT_DROPPED: buffer full or average beyond max_th).
    return [format {{"arrivals": %d, "early_drops": %d, "other_drops": %d}} \
        [expr {int([$q getStat pkts $cp])}] [expr {int([$q getStat edrops $cp])}] \
        [expr {int([$q getStat drops $cp])}]]
}

proc finish {} {
    global ns opt N T qC CP_IN CP_OUT tcp dlvchan evchan markchan wall0
    set wall [expr {([clock microseconds] - $wall0) / 1e6}]
    set flows {}
    for {set i 0} {$i < $N} {incr i} {
        lappend flows [format {{"data_pkts_sent": %d, "rexmit_pkts": %d, "ecn_responses": %d, "cwnd_cuts": %d, "cwnd_cuts_ecn": %d, "rexmit_events": %d}} \
            [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] [$tcp($i) set necnresponses_] \
            [$tcp($i) set ncwndcuts_] [$tcp($i) set ncwndcuts1_] [$tcp($i) set nrexmit_]]
    }
    puts [format {NS2 {"script": "leung.tcl", "seed": %d, "duration_s": %s, "wall_s": %.6f, "flows": [%s], "bottleneck": {"%d": %s, "%d": %s}}} \
        $opt(seed) $T $wall [join $flows ", "] $CP_IN [cpstats $qC $CP_IN] $CP_OUT [cpstats $qC $CP_OUT]]
    flush stdout
    $ns flush-trace
    close $dlvchan
    close $evchan
    close $markchan
    exit 0
}
$ns at $T "finish"
$ns at 0.0 {set wall0 [clock microseconds]}
$ns run
