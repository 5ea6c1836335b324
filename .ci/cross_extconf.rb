# frozen_string_literal: true

# extconf.rb as it would run on a Debian root's own Ruby, but on the host:
# run with the root's Ruby library directory first on the load path (and
# --disable-gems, so that the host's rbconfig is not loaded first), it reads
# the root's rbconfig (its headers, libruby, flags and compiler name, which
# is the name of Debian's cross compiler for that processor) and writes a
# Makefile that builds the extension for the root with that compiler. The
# root is the compiler's sysroot: its C library's headers and linker
# scripts are the ones used.
#
#   ruby --disable-gems -I ROOT/usr/lib/TRIPLET/ruby/X.Y.0 cross_extconf.rb ROOT EXTCONF
root, extconf = ARGV
abort "usage: cross_extconf.rb ROOT EXTCONF" unless extconf
require "rbconfig"
abort "cross_extconf.rb: the host's rbconfig was loaded, not #{root}'s" unless RbConfig::TOPDIR.start_with?(root)
compiler = "#{RbConfig::CONFIG['CC']} --sysroot=#{root}"
[RbConfig::CONFIG, RbConfig::MAKEFILE_CONFIG].each { |config| config["CC"] = compiler }
$PROGRAM_NAME = extconf # mkmf finds the sources beside it
load extconf
