#!/usr/bin/perl
# A FAKE `swift` for xcfleet's fault-injection and scale tests (Tests/SSHClientTests/FaultInjectionTests.swift,
# ScaleTests.swift). The compiler is faked there on purpose: a real `swift build` of a rendered package
# costs ~1 min of CPU on this 2-core machine, and those tests are about SSH, pushes, scheduling, retries,
# deadlines and reports, which stay real. The real toolchain path is covered by SSHRunTests / EndToEndTests.
#
# Install it as a file named `swift` (xcfleet puts the folder of `toolchain.swiftPath` first on PATH
# and runs `swift build --build-tests` / `swift test --skip-build [--filter REGEX]` in the pushed package):
#   swift --version                 prints a Swift version line (the host health check reads it)
#   swift build ...                 prints a short build log, installs itself as the test bundle
#                                   .build/debug/<Package>PackageTests.xctest (the name in Package.swift;
#                                   xcfleet runs the cached bundle directly, see docs/builds.md), exits 0
#   <Package>PackageTests.xctest --list-tests
#                                   the bundle's list: `Module.Class/test` for every `func test…()` of
#                                   the classes in Tests/<Module>/*.swift (the module is the test target
#                                   xcfleet-manifest.json names): what the fake "compiled"
#   <Package>PackageTests.xctest --testing-library swift-testing ...
#                                   no Swift Testing in this bundle: exits 69, as a real bundle without it
#   <Package>PackageTests.xctest [Module.Class/test,...]
#                                   the bundle: like `swift test`, limited to the comma-separated names
#   swift test --skip-build [--filter RE]
#                                   prints Linux XCTest output for every listed `Class/test` (matching
#                                   RE as `Module.Class/test`), all passing; exits 0
# Environment: FAKE_SWIFT_DELAY  seconds to sleep before each test (default 0), so a suite runs long
#                                enough to be broken mid-run.
#              FAKE_SWIFT_BUILD_DELAY seconds `swift build` takes (default 0), so jobs meet at the
#                                host's build lock.
#              FAKE_SWIFT_FAIL   a `Class/test` name that fails instead of passing (exit 1).
#              FAKE_SWIFT_ATTACH a shell command the failing test runs first (in the job folder, with
#                                $XCFLEET_ATTACHMENTS_DIR set: it writes the test's attachments).
use strict;
use warnings;
use JSON::PP;
use POSIX qw(strftime);
use Time::HiRes qw(sleep time);

$| = 1;
my $bundle = $0 =~ /\.xctest$/;
my $cmd = $bundle ? 'test' : shift(@ARGV) // '';
if ($cmd eq '--version') {
    print "Swift version 6.3.1 (fake toolchain for xcfleet tests)\nTarget: x86_64-unknown-linux-gnu\n";
    exit 0;
}
if ($cmd eq 'build') {
    sleep($ENV{FAKE_SWIFT_BUILD_DELAY}) if ($ENV{FAKE_SWIFT_BUILD_DELAY} // '') =~ /^[0-9.]+$/;
    print "Building for debugging...\n[1/1] Compiling (fake)\nBuild complete! (0.01s)\n";
    my $name = 'Fake';
    if (open(my $p, '<', 'Package.swift')) { local $/; my $text = <$p>; $name = $1 if $text =~ /name:\s*"([^"]+)"/; close $p; }
    my $bundle = ".build/debug/${name}PackageTests.xctest";
    system('mkdir', '-p', '.build/debug') == 0 or exit 1;
    system('cp', $0, $bundle) == 0 or exit 1;
    chmod 0755, $bundle;
    exit 0;
}
if ($cmd ne 'test') {
    print STDERR "fake swift: unsupported command '$cmd'\n";
    exit 64;
}
my $filter;
my %only;
my $list = 0;
if ($bundle) {
    if (@ARGV && $ARGV[0] eq '--testing-library') { exit 69 }
    if (@ARGV && $ARGV[0] eq '--list-tests') { $list = 1; shift @ARGV }
    %only = map { $_ => 1 } split /,/, (shift(@ARGV) // '');
} else {
    while (@ARGV) {
        my $a = shift @ARGV;
        $filter = shift @ARGV if $a eq '--filter';
    }
}
open(my $fh, '<', 'xcfleet-manifest.json') or do { print STDERR "fake swift: no xcfleet-manifest.json in " . `pwd`; exit 1 };
local $/;
my $manifest = decode_json(<$fh>);
close $fh;
my $module = $manifest->{testTarget} // 'Tests';
# What the fake "compiled": each `func test…()` under the class (or extension) it follows.
my @compiled;
for my $file (sort glob("Tests/$module/*.swift")) {
    open(my $src, '<', $file) or next;
    my $class = '';
    for my $line (split /\n/, <$src>) {
        $class = $1 if $line =~ /^\s*(?:@\w+\s+)*(?:final\s+)?(?:class|extension)\s+(\w+)/;
        push @compiled, "$class/$1" if $class ne '' && $line =~ /^\s*(?:@\w+\s+)*func\s+(test\w*)\s*\(\s*\)/;
    }
    close $src;
}
if ($list) {
    print "$module.$_\n" for @compiled;
    exit 0;
}
my @tests = grep { (!defined($filter) || "$module.$_" =~ /$filter/) && (!%only || $only{"$module.$_"}) } @compiled;
my $delay = $ENV{FAKE_SWIFT_DELAY} // 0;
my $fail = $ENV{FAKE_SWIFT_FAIL} // '';

sub stamp { my $t = time; return strftime('%Y-%m-%d %H:%M:%S', localtime($t)) . sprintf('.%03d', ($t - int($t)) * 1000) }

my $start = time;
print "Test Suite 'All tests' started at " . stamp() . "\n";
print "Test Suite 'debug.xctest' started at " . stamp() . "\n";
my ($failures, $current) = (0, '');
for my $t (@tests) {
    my ($class, $name) = split m{/}, $t, 2;
    if ($class ne $current) {
        print "Test Suite '$class' started at " . stamp() . "\n";
        $current = $class;
    }
    print "Test Case '$class.$name' started at " . stamp() . "\n";
    sleep($delay) if $delay > 0;
    if ($t eq $fail) {
        system('sh', '-c', $ENV{FAKE_SWIFT_ATTACH}) if defined $ENV{FAKE_SWIFT_ATTACH};
        print "/fake/$class.swift:1: error: $class.$name : XCTAssertTrue failed - fake failure\n";
        print "Test Case '$class.$name' failed (0.001 seconds)\n";
        $failures++;
    } else {
        print "Test Case '$class.$name' passed (0.001 seconds)\n";
    }
}
my $n = scalar @tests;
my $elapsed = sprintf('%.3f', time - $start);
my $word = $failures ? 'failed' : 'passed';
for my $suite ('debug.xctest', 'All tests') {
    print "Test Suite '$suite' $word at " . stamp() . "\n";
    print "\t Executed $n test" . ($n == 1 ? '' : 's') . ", with $failures failure" . ($failures == 1 ? '' : 's') . " (0 unexpected) in $elapsed ($elapsed) seconds\n";
}
exit($failures ? 1 : 0);
