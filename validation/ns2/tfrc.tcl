# ns-2.35 reference for afsim's TFRC (the ns2 preset): TFRC flows, alone or with NewReno TCP,
# over a RED dumbbell; or one TFRC flow over a link with Bernoulli loss.
#
#   dumbbell:  src0..src{N-1} ─100 Mb/s, 1 ms─ r1 ═bottleneck, 20 ms, RED═ r2 ─100 Mb/s, 1 ms─ dst0..
#              flows 0..tfrc-1 are TFRC, the next tcp are NewReno TCP (src_i → dst_i)
#   bernoulli: src ─100 Mb/s, 1 ms─ r1 ═100 Mb/s, 48 ms, loss p on r1→r2═ r2 ─100 Mb/s, 1 ms─ dst
#
# Usage (every argument optional, key=value):
#   ns tfrc.tcl mode=dumbbell tfrc=4 tcp=0 rate=4Mb seed=1 duration=100 warmup=20 print=0
#   ns tfrc.tcl mode=bernoulli p=0.01 seed=1 duration=300 warmup=20 print=0
#
#   mode       dumbbell or bernoulli                                          default dumbbell
#   tfrc, tcp  numbers of TFRC and TCP flows (dumbbell)                       default 4, 0
#   rate       bottleneck rate (dumbbell)                                     default 4Mb
#   p          packet loss probability on r1→r2 (bernoulli)                   default 0.01
#   seed       seed of ns-2's default RNG (RED's coin flips, the error model) default 1
#   duration   simulated seconds                                              default 100
#   warmup     start of the measured interval, seconds                        default 20
#   start_step flow i starts at i × start_step seconds                        default 0.25
#   print      index of the TFRC flow whose receiver prints its loss event
#              rate at every report (ns-2 prints no flow id, so one per run;
#              the run is otherwise identical); -1 for none                   default 0
#   sample     the TFRC senders' rate_ is sampled every `sample` seconds       default 0.5
#
# Output: one JSON object on stdout (see `finish`): per flow the bytes the sink received in
# the measured interval (IP bytes, headers included), packets sent, and for TFRC flows the
# sampled rate_ (bytes of packetSize_ per second); then the printed loss event rates as lines
# "LOSS t p" (time, p) of flow `print`.
#
# Every setting the afsim scenarios (scenarios/validation/tfrc-*.toml) must match is set here
# explicitly, so that ns-default.tcl cannot change the comparison silently. Agent/TFRC and
# Agent/TFRCSink keep ns-2.35's defaults, which the afsim `ns2` preset reproduces; the ones it
# depends on are restated below. See docs/validation.md, "TFRC against ns-2".

array set opt {
    mode dumbbell tfrc 4 tcp 0 rate 4Mb p 0.01 seed 1 duration 100 warmup 20
    start_step 0.25 print 0 sample 0.5
}
foreach a $argv {
    set kv [split $a =]
    if {[llength $kv] != 2 || ![info exists opt([lindex $kv 0])]} {
        puts stderr "tfrc.tcl: bad argument '$a' (known: [lsort [array names opt]])"
        exit 2
    }
    set opt([lindex $kv 0]) [lindex $kv 1]
}
if {$opt(seed) <= 0} { puts stderr "tfrc.tcl: seed must be > 0"; exit 2 }
if {$opt(mode) == "bernoulli"} { set opt(tfrc) 1; set opt(tcp) 0 }
set NF $opt(tfrc)
set NT $opt(tcp)
set N [expr {$NF + $NT}]
set T [expr {double($opt(duration))}]
set W [expr {double($opt(warmup))}]

# ------------------------------------------------------------------ TFRC (ns-2.35 defaults)
Agent/TFRC set packetSize_ 1000       ;# s; +32 B headersize_ on the wire (useHeaders_): 1032 B IP packets
Agent/TFRC set useHeaders_ true
Agent/TFRC set headersize_ 32
Agent/TFRC set SndrType_ 0            ;# always has data
Agent/TFRC set InitRate_ 300
Agent/TFRC set rate_init_option_ 2    ;# RFC 3390 initial rate
Agent/TFRC set slow_increase_ 1
Agent/TFRC set ca_ 1
Agent/TFRC set df_ 0.95
Agent/TFRC set tcp_tick_ 0.1
Agent/TFRC set overhead_ 0            ;# no send-time dither: RED and the error model are the only randomness
Agent/TFRC set maxHeavyRounds_ 0
Agent/TFRC set conservative_ 0
Agent/TFRC set voip_ 0
Agent/TFRC set ecn_ 0
Agent/TFRCSink set packetSize_ 40
Agent/TFRCSink set numPkts_ 1
Agent/TFRCSink set PreciseLoss_ 1
Agent/TFRCSink set NumFeedback_ 1
Agent/TFRCSink set algo_ 1
Agent/TFRCSink set smooth_ 1
Agent/TFRCSink set discount_ 1
Agent/TFRCSink set minDiscountRatio_ 0.5
Agent/TFRCSink set AdjustHistoryAfterSS_ 1
Agent/TFRCSink set ShortIntervals_ 0

# ------------------------------------------------------------------ TCP (as dumbbell.tcl)
Agent/TCP set packetSize_ 1000        ;# + 40 B headers = 1040 B IP packets
Agent/TCP set useHeaders_ true
Agent/TCP set window_ 1000
Agent/TCP set windowInit_ 2
Agent/TCP set windowInitOption_ 1
Agent/TCP set syn_ false
Agent/TCP set singledup_ 1
Agent/TCP set numdupacks_ 3
Agent/TCP set tcpTick_ 0.01
Agent/TCP set minrto_ 0.2
Agent/TCP set maxrto_ 60
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP set maxburst_ 0
Agent/TCP set overhead_ 0
Agent/TCP set timestamps_ false
Agent/TCP set ecn_ 0

# ------------------------------------------------------------------ RED (classic, packets)
Queue/RED set thresh_ 10
Queue/RED set maxthresh_ 30
Queue/RED set linterm_ 10             ;# max_p 0.1
Queue/RED set q_weight_ 0.002
Queue/RED set gentle_ false
Queue/RED set wait_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set bytes_ false
Queue/RED set mean_pktsize_ 1000
Queue/RED set use_mark_p_ false
Queue/RED set setbit_ false
Queue/RED set adaptive_ 0
Queue/RED set cautious_ 0
Queue/RED set drop_tail_ true
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
    $ns duplex-link $src($i) $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $dst($i) 100Mb 1ms DropTail
    foreach {a b} [list $src($i) $r1 $r1 $src($i) $r2 $dst($i) $dst($i) $r2] {
        $ns queue-limit $a $b 1000
    }
}
if {$opt(mode) == "bernoulli"} {
    $ns duplex-link $r1 $r2 100Mb 48ms DropTail
    $ns queue-limit $r1 $r2 1000
    $ns queue-limit $r2 $r1 1000
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $opt(p)
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    # after the link's delay, as afsim's link loss (ns-lib.tcl link-lossmodel)
    $ns link-lossmodel $em $r1 $r2
} else {
    $ns duplex-link $r1 $r2 $opt(rate) 20ms RED
    $ns queue-limit $r1 $r2 60
    $ns queue-limit $r2 $r1 60
}

# ------------------------------------------------------------------ flows
for {set i 0} {$i < $N} {incr i} {
    if {$i < $NF} {
        set snd($i) [new Agent/TFRC]
        set rcv($i) [new Agent/TFRCSink]
        $rcv($i) set printLoss_ [expr {$i == $opt(print) ? 1 : 0}]
    } else {
        set snd($i) [new Agent/TCP/Newreno]
        set rcv($i) [new Agent/TCPSink]
        set ftp($i) [new Application/FTP]
        $ftp($i) attach-agent $snd($i)
    }
    $snd($i) set fid_ $i
    $ns attach-agent $src($i) $snd($i)
    $ns attach-agent $dst($i) $rcv($i)
    $ns connect $snd($i) $rcv($i)
    set t0 [expr {$i * $opt(start_step)}]
    if {$i < $NF} {
        $ns at $t0 "$snd($i) start"
    } else {
        $ns at $t0 "$ftp($i) start"
    }
}

# bytes received by each sink at the start of the measured interval
proc mark_warmup {} {
    global N rcv at_warmup
    for {set i 0} {$i < $N} {incr i} { set at_warmup($i) [$rcv($i) set bytes_] }
}
# the TFRC senders' rate_, sampled
proc sample_rates {} {
    global ns NF snd rates opt
    set now [$ns now]
    for {set i 0} {$i < $NF} {incr i} { lappend rates($i) [format "%.6g" [$snd($i) set rate_]] }
    $ns at [expr {$now + $opt(sample)}] "sample_rates"
}
for {set i 0} {$i < $NF} {incr i} { set rates($i) {} }
$ns at $W "mark_warmup"
$ns at $opt(sample) "sample_rates"

proc finish {} {
    global ns opt N NF snd rcv at_warmup rates T W
    set flows {}
    for {set i 0} {$i < $N} {incr i} {
        # TFRCSink and TCPSink bytes_: IP bytes received (TCPSink: in order)
        set bytes [expr {[$rcv($i) set bytes_] - $at_warmup($i)}]
        if {$i < $NF} {
            lappend flows [format {{"kind": "tfrc", "bytes_measured": %s, "packets_sent": %d, "rate_samples": [%s]}} \
                $bytes [$snd($i) set ndatapack_] [join $rates($i) ", "]]
        } else {
            lappend flows [format {{"kind": "tcp", "bytes_measured": %s, "packets_sent": %d, "timeouts": %d}} \
                $bytes [$snd($i) set ndatapack_] [$snd($i) set nrexmit_]]
        }
    }
    flush stdout
    puts [format {{"simulator": "ns-2", "mode": "%s", "seed": %d, "duration_s": %s, "warmup_s": %s, "sample_s": %s, "flows": [%s]}} \
        $opt(mode) $opt(seed) $T $W $opt(sample) [join $flows ",\n  "]]
    exit 0
}
$ns at $T "finish"
$ns run
