# ns-2.35 twin of afsim's gTFRC scenarios (python/afsim/scenarios/gtfrc/*.toml): TFRC and NewReno
# flows, each metered at the edge by its own two-colour token bucket (in profile -> code point 10
# = AF11, out of profile -> 12 = AF12), over a 1000 kb/s RIO-C bottleneck core -> egress.
#
#   src_i ─edge_rate, delay_i─ edge ─edge_rate, edge_delay, dsRED/edge─ core ═1000kb, edge_delay, dsRED/core═ egress ─edge_rate, edge_delay─ dst_i
#
# The values are the afsim scenario's, passed by afsim.reproduce (gtfrc.py, `ns2_args`) from the
# same parameters the afsim run gets; the topology and the fixed settings (the 50-packet queues,
# §4.1's RIO curves, the token buckets' 10^4-byte depth, the flows' ns-2.28 settings that the
# scenario files restate) are the scenario files', written here once. gTFRC's floor is the
# paper's own and is refused by the caller.
#
# Usage (key=value; every argument is optional):
#   ns gtfrc.tcl seed=1 duration=100 warmup=0 kinds="tfrc tcp" targets="800000 200000" \
#       delays="305ms 5ms"
#
#   seed        seed of ns-2's default RNG (RIO's coin flips); > 0                    default 1
#   duration    simulated seconds (§4.1: 100)                                        default 100
#   warmup      throughput is counted over (warmup, duration]                        default 0
#   kinds       each flow's transport: tfrc or tcp                                   default "tfrc tfrc"
#   targets     each flow's token bucket rate (its target), bit/s                    default "800000 200000"
#   delays      each flow's access-link delay src_i -> edge                          default "305ms 5ms"
#   edge_rate   every link but the bottleneck                                        default 10Mb
#   edge_delay  the three shared links' delay                                        default 5ms
#   w_q         RIO's weight (configQ's sixth value), both precedences              default 0.002
#   tcp_size    TCP's IP packet size, bytes (packetSize_ + 40 B of headers)          default 1540
#   tcp_window  TCP's window_, packets                                               default 20
#   tfrc_size   TFRC's packet size, bytes (useHeaders_ false: ns-2.28 sent none)     default 1500
#   names       the flows' names in the afsim scenario, echoed in the output           default "a b"
#   sample      period of the TFRC senders' rate_/p samples, seconds (0: none)      default 0.01
#   trace       a file for ns-2's packet trace of every access link, both ways          default "" (none)
#               (src_i <-> edge, egress <-> dst_i: "+" sent, "r" received; column 11 is
#               the TFRC sequence number; docs/validation.md, "Slow start beside a short-RTT flow")
#   status      index of a TFRC flow whose sender prints printStatus_ (its rate, packet rate
#               and 2·X_recv at each report, in packets per RTT; slowstart's steps)  default -1 (none)
#
# Output (stdout): "NS2 {...}" (configuration, packets sent, the bottleneck's dsRED counters per
# code point), "DELIVERED b0 b1 ..." (IP bytes each destination received after warmup),
# "TOTAL b0 b1 ..." (the same over the whole run), "SENT b0 b1 ..." (IP bytes each source sent
# over the run), and for each change of a TFRC
# sender's sampled rate "XROW flow t rate_bytes_per_s p".

source [file join [file dirname [info script]] common.tcl]

array set opt {
    seed 1 duration 100 warmup 0 kinds "tfrc tfrc" targets "800000 200000"
    delays "305ms 5ms" edge_rate 10Mb edge_delay 5ms w_q 0.002 tcp_size 1540 tcp_window 20
    tfrc_size 1500 sample 0.01 names "a b" trace "" status -1
}
parse_options gtfrc.tcl opt $argv
set N [llength $opt(kinds)]
foreach k {targets delays} {
    if {[llength $opt($k)] != $N} { puts stderr "gtfrc.tcl: $k needs $N values"; exit 2 }
}
if {$opt(seed) <= 0} { puts stderr "gtfrc.tcl: seed must be > 0"; exit 2 }
set T [expr {double($opt(duration))}]
set W [expr {double($opt(warmup))}]
set CP_IN 10
set CP_OUT 12
# afsim's 50-packet queues (§4.1): dsRED's queue-limit 50 (dsredq.cc holds limit), DropTail's 51
# (drop-tail.cc holds limit_ - 1; docs/validation.md).
set LIM 50
set DT [expr {$LIM + 1}]

# TCP: the scenario files' NewReno with ns-2.28's settings (initial_window 2, limited transmit,
# tick 10 ms, min_rto 200 ms, initial_rto 6 s, max_rto 100000 s, no SYN).
tcp_defaults [expr {$opt(tcp_size) - 40}] $opt(tcp_window) 2 1 0.01 0
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set maxrto_ 100000
# TFRC: ns-2.35's Agent/TFRC defaults (afsim's ns2 preset), with the scenario files' 1500-byte
# packets and no header bytes (header_size 0B: ns-2.28's TFRC put none on the wire).
Agent/TFRC set packetSize_ $opt(tfrc_size)
Agent/TFRC set useHeaders_ false
Agent/TFRC set SndrType_ 0
Agent/TFRC set overhead_ 0
Agent/TFRC set ecn_ 0
Agent/TFRCSink set packetSize_ 40

set ns [new Simulator]
global defaultRNG
$defaultRNG seed $opt(seed)

set edge [$ns node]
set core [$ns node]
set egress [$ns node]
for {set i 0} {$i < $N} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
}
$ns simplex-link $edge $core $opt(edge_rate) $opt(edge_delay) dsRED/edge
$ns simplex-link $core $edge $opt(edge_rate) $opt(edge_delay) DropTail
$ns simplex-link $core $egress 1000kb $opt(edge_delay) dsRED/core
$ns simplex-link $egress $core 1000kb $opt(edge_delay) DropTail
$ns queue-limit $edge $core $LIM
$ns queue-limit $core $egress $LIM
$ns queue-limit $core $edge $DT
$ns queue-limit $egress $core $DT
for {set i 0} {$i < $N} {incr i} {
    $ns duplex-link $src($i) $edge $opt(edge_rate) [lindex $opt(delays) $i] DropTail
    $ns duplex-link $egress $dst($i) $opt(edge_rate) $opt(edge_delay) DropTail
    foreach {a b} [list $src($i) $edge $edge $src($i) $egress $dst($i) $dst($i) $egress] { $ns queue-limit $a $b $DT }
}

set qE [[$ns link $edge $core] queue]
set qC [[$ns link $core $egress] queue]
# §4.1: "a two color token bucket marker with a bucket size of 10^4 bytes" per flow, at its
# target rate (dsPolicy.cc TokenBucket: CIR bit/s, CBS bytes). The edge's own RIO never drops.
dsred_in_out $qE 1500 RIO-C
for {set i 0} {$i < $N} {incr i} {
    $qE addPolicyEntry [$src($i) id] [$dst($i) id] TokenBucket $CP_IN [lindex $opt(targets) $i] 10000
}
$qE addPolicerEntry TokenBucket $CP_IN $CP_OUT
$qE configQ 0 0 [expr {$LIM - 2}] [expr {$LIM - 1}] 0.02
$qE configQ 0 1 [expr {$LIM - 2}] [expr {$LIM - 1}] 0.02
# §4.1's RIO: (min_in, max_in, p_in) = (20, 40, 0.02), (min_out, max_out, p_out) = (10, 20, 0.1).
dsred_in_out $qC 1500 RIO-C
$qC configQ 0 0 20 40 0.02 $opt(w_q)
$qC configQ 0 1 10 20 0.1 $opt(w_q)

# IP bytes each source sent and each destination received (after warmup, and in all).
set srcs {}; set dsts {}
for {set i 0} {$i < $N} {incr i} { lappend srcs $src($i); lappend dsts $dst($i) }
set chan [bytes_trace $ns $srcs [lrepeat $N $edge] [lrepeat $N $egress] $dsts $W]
set dbg ""
if {$opt(trace) != ""} {
    set dbg [open $opt(trace) w]
    for {set i 0} {$i < $N} {incr i} {
        foreach {a b} [list $src($i) $edge $edge $src($i) $egress $dst($i) $dst($i) $egress] { $ns trace-queue $a $b $dbg }
    }
}

for {set i 0} {$i < $N} {incr i} {
    set kind [lindex $opt(kinds) $i]
    if {$kind == "tcp"} {
        lassign [greedy_flow $ns $src($i) $dst($i) [tcp_agents gtfrc.tcl newreno] $i 0.0 ""] agent($i) sink($i)
    } elseif {$kind == "tfrc"} {
        set agent($i) [new Agent/TFRC]
        $agent($i) set fid_ $i
        set sink($i) [new Agent/TFRCSink]
        $ns attach-agent $src($i) $agent($i)
        $ns attach-agent $dst($i) $sink($i)
        $ns connect $agent($i) $sink($i)
        $ns at 0.0 "$agent($i) start"
        if {$i == $opt(status)} { $agent($i) set printStatus_ 1 }
        set last($i) ""
    } else {
        puts stderr "gtfrc.tcl: kinds: tfrc or tcp, not '$kind'"; exit 2
    }
}

# The TFRC senders' rate_ (bytes/s) and true_loss_rate_ (the p of the last feedback), written
# when either changes, sampled every opt(sample) seconds.
proc sample_x {} {
    global ns opt N agent last
    set now [$ns now]
    for {set i 0} {$i < $N} {incr i} {
        if {[lindex $opt(kinds) $i] != "tfrc"} { continue }
        set v "[$agent($i) set rate_] [$agent($i) set true_loss_rate_]"
        if {$v != $last($i)} {
            puts "XROW $i [format %.4f $now] $v"
            set last($i) $v
        }
    }
    $ns at [expr {$now + $opt(sample)}] sample_x
}
if {$opt(sample) > 0} { $ns at 0.0 sample_x }

proc finish {} {
    global ns opt N T qC CP_IN CP_OUT agent chan dbg wall0
    set wall [expr {([clock microseconds] - $wall0) / 1e6}]
    set flows {}
    for {set i 0} {$i < $N} {incr i} {
        lappend flows [format {{"name": "%s", "kind": "%s", "target_bps": %s, "data_pkts_sent": %d}} \
            [lindex $opt(names) $i] [lindex $opt(kinds) $i] [lindex $opt(targets) $i] \
            [$agent($i) set ndatapack_]]
    }
    puts [format {NS2 {"script": "gtfrc.tcl", "seed": %d, "duration_s": %s, "warmup_s": %s, "wall_s": %.6f, "flows": [%s], "bottleneck": {"%d": %s, "%d": %s}}} \
        $opt(seed) $T $opt(warmup) $wall [join $flows ", "] $CP_IN [cpstats $qC $CP_IN] $CP_OUT [cpstats $qC $CP_OUT]]
    flush stdout
    $ns flush-trace
    close $chan
    if {$dbg != ""} { close $dbg }
    exit 0
}
$ns at $T "finish"
$ns at 0.0 {set wall0 [clock microseconds]}
$ns run
