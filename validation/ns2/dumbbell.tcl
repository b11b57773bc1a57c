# ns-2.35 reference for afsim's TCP: N Reno, NewReno or SACK flows over a RED dumbbell.
#
#   src0..src{N-1} ─access_rate, 1 ms─ r1 ═bottleneck, 20 ms, RED═ r2 ─access_rate, 1 ms─ dst0..dst{N-1}
#
# Usage (every argument is optional, key=value):
#   ns dumbbell.tcl flows=10 rate=10Mb ecn=0 seed=1 duration=60 marks=1 variant=newreno
#
#   variant    sender and sink: reno (Agent/TCP/Reno), newreno (Agent/TCP/Newreno), both
#              with Agent/TCPSink; sack (Agent/TCP/Sack1 with Agent/TCPSink/Sack1)  default newreno
#   flows      number of flows (and of source/sink nodes)                     default 10
#   rate       bottleneck rate, an ns-2 bandwidth ("10Mb", "100Mb")           default 10Mb
#   access_rate rate of the access links (src-r1, r2-dst); at 100Mb a packet of a
#              back-to-back burst reaches r1 at the instant the bottleneck finishes the
#              one before it (ties.py moves it off that instant)       default 100Mb
#   ecn        1: ECN-capable TCP and RED marking (setbit_)                   default 0
#   seed       seed of ns-2's default RNG (RED's coin flips are the only
#              random thing in this scenario); must be > 0                    default 1
#   duration   simulated seconds                                              default 60
#   start_step flow i starts at i * start_step seconds; default 1/flows,
#              so the flows start over the first second
#   window     receiver window window_, packets                               default 1000
#   iw         initial window windowInit_, packets                            default 2
#   lt         limited transmit singledup_ (1 = ns-2.35's default)            default 1
#   access_q   DropTail limit of the access links, packets                    default 1000
#   bq         bottleneck queue: red, or droptail (nothing random left but the
#              TCP clock's phase; exact.py)                                    default red
#   bq_limit   queue-limit of the bottleneck, packets                          default 500
#   tick       tcpTick_, seconds                                               default 0.01
#   minrto     minrto_, seconds (exact.py --min-rto)                           default 0.2
#   marks      1: count CE marks on the bottleneck (a dequeue trace piped
#              through awk); 0 for timing runs                                default 1
#   events     1: count every retransmission timeout (the senders' event trace,
#              "TIMEOUT" lines, piped through awk): ns-2's nrexmit_ leaves out
#              the timeouts that end an ECN window reduction; 0 for timing runs   default 1
#   cwnd_trace a file name: every sender's cwnd_ and ssthresh_ changes are
#              written there (ns-2 variable trace, for diagnosis)             default none
#   pkt_trace  a file name: ns-2's queue trace of flow pkt_flow's access link, both
#              ways (its data and its ACKs; beside afsim's --capture)        default none
#   pkt_flow   the flow pkt_trace follows                                    default 0
#
# Output: one JSON object on stdout (see `finish` below): per-flow goodput, retransmissions and
# timeouts, bottleneck counters, wall_s (the event loop from simulated time 0 to the end) and
# setup_s (building the network and ns-2's route computation); with ecn=1 and marks=1 a last
# line "MARKS n", and with events=1 a line "TIMEOUTS n0 n1 ..." (every timeout, by flow).
# Nothing is written to disk unless cwnd_trace is given.
#
# Every setting that the afsim scenario has to match is set explicitly here, so that
# ns-2's defaults (ns-default.tcl) cannot change the comparison silently; the ones
# where ns-2.35's default differs from the stated configuration are marked "ns-2.35
# default:". See docs/validation.md, "TCP against ns-2".

set setup0 [clock microseconds]
source [file join [file dirname [info script]] common.tcl]

# ------------------------------------------------------------------ arguments
array set opt {
    flows 10 rate 10Mb ecn 0 seed 1 duration 60 start_step "" window 1000
    iw 2 lt 1 access_q 1000 marks 1 cwnd_trace "" variant newreno events 1
    bq red bq_limit 500 tick 0.01 access_rate 100Mb minrto 0.2
    pkt_trace "" pkt_flow 0
}
parse_options dumbbell.tcl opt $argv
set N $opt(flows)
set T [expr {double($opt(duration))}]
if {$opt(start_step) == ""} { set opt(start_step) [expr {1.0 / $N}] }
if {$opt(seed) <= 0} { puts stderr "dumbbell.tcl: seed must be > 0 (0 = seeded from the clock)"; exit 2 }
set AGENTS [tcp_agents dumbbell.tcl $opt(variant)]
array set queues {red RED droptail DropTail}
if {![info exists queues($opt(bq))]} { puts stderr "dumbbell.tcl: bq must be red or droptail"; exit 2 }

# ------------------------------------------------------------------ TCP
# One-way TCP (Agent/TCP/Reno, /Newreno or /Sack1) with its sink (an ACK per segment):
# 1000-byte payloads + 40 B of headers = 1040 B IP packets; window_ large enough never to bind
# after slow start (common.tcl).
tcp_defaults 1000 $opt(window) $opt(iw) $opt(lt) $opt(tick) $opt(ecn)
Agent/TCP set minrto_ $opt(minrto)

# ------------------------------------------------------------------ RED
# Classic RED (Floyd & Jacobson 1993) with the stated parameters, the queue in packets.
Queue/RED set thresh_ 50
Queue/RED set maxthresh_ 150
Queue/RED set linterm_ 10             ;# max_p = 1/linterm_ = 0.1
Queue/RED set q_weight_ 0.002         ;# ns-2.35 default: -1 (derived from the link)
Queue/RED set gentle_ false           ;# ns-2.35 default: true
Queue/RED set wait_ false             ;# ns-2.35 default: true (p_a = p_b/(2 - count*p_b) after a wait)
Queue/RED set queue_in_bytes_ false   ;# ns-2.35 default: true (thresholds x mean_pktsize_ bytes)
Queue/RED set bytes_ false            ;# ns-2.35 default: true (byte-mode drop probability)
Queue/RED set mean_pktsize_ 500       ;# ns-2.35 default; only the idle-time decay uses it here
Queue/RED set use_mark_p_ false       ;# ns-2.35 default: true (then avg >= maxthresh is an "unforced" drop)
Queue/RED set setbit_ $opt(ecn)       ;# ECN: mark the arriving packet instead of an early drop
Queue/RED set adaptive_ 0
Queue/RED set cautious_ 0
Queue/RED set drop_tail_ true         ;# a forced drop drops the arrival
Queue/RED set drop_front_ false
Queue/RED set drop_rand_ false
Queue/RED set ns1_compat_ false
Queue/RED set summarystats_ false

# ------------------------------------------------------------------ topology
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $opt(seed)

set r1 [$ns node]
set r2 [$ns node]
for {set i 0} {$i < $N} {incr i} {
    set src($i) [$ns node]
    set dst($i) [$ns node]
}
$ns duplex-link $r1 $r2 $opt(rate) 20ms $queues($opt(bq))
$ns queue-limit $r1 $r2 $opt(bq_limit)
$ns queue-limit $r2 $r1 $opt(bq_limit)
for {set i 0} {$i < $N} {incr i} {
    $ns duplex-link $src($i) $r1 $opt(access_rate) 1ms DropTail
    $ns duplex-link $r2 $dst($i) $opt(access_rate) 1ms DropTail
    foreach {a b} [list $src($i) $r1 $r1 $src($i) $r2 $dst($i) $dst($i) $r2] {
        $ns queue-limit $a $b $opt(access_q)
    }
}

# ------------------------------------------------------------------ monitors
# Bottleneck r1->r2: a QueueMonitor/ED counts arrivals, departures, all drops (pdrops_)
# and RED's random (unforced) drops (epdrops_) through the early-drop target.
set blink [$ns link $r1 $r2]
set redq [$blink queue]
set qmon [new QueueMonitor/ED]
$blink attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qmon
if {$opt(bq) == "red"} {
    set edsnoop [new SnoopQueue/EDrop]
    $edsnoop set-monitor $qmon
    $redq early-drop-target $edsnoop
    $edsnoop target [$ns set nullAgent_]
}
set qint [new Integrator]
$qmon set-pkts-integrator $qint

# CE marks are counted nowhere in ns-2; a dequeue trace on the bottleneck shows them
# (flag 'E' = ecn_to_echo_, the CE codepoint, 5th character of the flags field).
set markchan ""
if {$opt(ecn) && $opt(marks)} {
    set markchan [open {|awk {$1 == "-" && substr($7, 5, 1) == "E" {n++} END {printf "%d\n", n}}} w]
    set deqT [$ns create-trace Deque $markchan $r1 $r2]
    $deqT target [$redq target]
    $redq target $deqT
}

# Every retransmission timeout, by flow (common.tcl, timeout_trace).
lassign {"" ""} evchan evtrace
if {$opt(events)} {
    lassign [timeout_trace $N] evchan evtrace
}

# ------------------------------------------------------------------ flows
for {set i 0} {$i < $N} {incr i} {
    lassign [greedy_flow $ns $src($i) $dst($i) $AGENTS $i [expr {$i * $opt(start_step)}] $evtrace] tcp($i) sink($i)
}
set pktchan ""
if {$opt(pkt_trace) != ""} {
    set pktchan [open $opt(pkt_trace) w]
    $ns trace-queue $src($opt(pkt_flow)) $r1 $pktchan
    $ns trace-queue $r1 $src($opt(pkt_flow)) $pktchan
}
if {$opt(cwnd_trace) != ""} {
    set cwndchan [open $opt(cwnd_trace) w]
    for {set i 0} {$i < $N} {incr i} {
        $tcp($i) attach $cwndchan
        $tcp($i) trace cwnd_
        $tcp($i) trace ssthresh_
    }
}

# ------------------------------------------------------------------ report
proc finish {} {
    global ns opt N T tcp sink qmon qint markchan evchan pktchan wall0 setup0
    set wall [expr {([clock microseconds] - $wall0) / 1e6}]
    set setup [expr {($wall0 - $setup0) / 1e6}]
    if {$pktchan != ""} { close $pktchan }
    set flows {}
    for {set i 0} {$i < $N} {incr i} {
        # TCPSink bytes_: in-order bytes handed to the application, counted in IP packet
        # sizes (1040 per segment); goodput counts payload (1000 per segment).
        # (packet 0 has no header bytes: TcpAgent::output adds headersize() only above seqno 0)
        set segs [expr {(int([$sink($i) set bytes_]) + 40) / 1040}]
        lappend flows [format {{"goodput_bytes": %d, "data_pkts_sent": %d, "rexmit_pkts": %d, "timeouts": %d, "ecn_responses": %d, "cwnd_cuts": %d, "acked": %d}} \
            [expr {$segs * 1000}] [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] \
            [$tcp($i) set nrexmit_] [$tcp($i) set necnresponses_] [$tcp($i) set ncwndcuts_] \
            [$tcp($i) set ack_]]
    }
    set pdrops [$qmon set pdrops_]
    set epdrops [$qmon set epdrops_]
    puts [format {{"simulator": "ns-2", "variant": "%s", "flows_n": %d, "rate": "%s", "ecn": %d, "seed": %d, "duration_s": %s, "wall_s": %.6f, "setup_s": %.6f,
 "bottleneck": {"arrivals": %d, "departures": %d, "bdepartures": %d, "drops": %d, "early_drops": %d, "forced_drops": %d, "mean_len_packets": %.4f},
 "flows": [%s]}} \
        $opt(variant) $N $opt(rate) $opt(ecn) $opt(seed) $T $wall $setup \
        [$qmon set parrivals_] [$qmon set pdepartures_] [$qmon set bdepartures_] \
        $pdrops $epdrops [expr {$pdrops - $epdrops}] [expr {[$qint set sum_] / $T}] \
        [join $flows ",\n  "]]
    flush stdout
    if {$markchan != ""} {
        # awk prints the mark count when its input closes
        puts -nonewline "MARKS "
        flush stdout
        close $markchan
    }
    if {$evchan != ""} {
        # awk prints the timeouts when its input closes
        close $evchan
    }
    exit 0
}
# wall_s: the event loop from simulated time 0 to the end (ns-2 computes its routes inside
# `$ns run`, before time 0: that, and building the network above, is setup_s)
$ns at $T "finish"
$ns at 0.0 {set wall0 [clock microseconds]}
$ns run
