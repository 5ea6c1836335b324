# frozen_string_literal: true

# What a build took on this processor (rake spec:platforms prints it before
# the specs): the byte order and whether CRC32C runs on the CPU's
# instruction or the portable table code.
require "bloomc"

order = [1].pack("S").unpack1("n") == 1 ? "big" : "little"
crc = Bloomc::CRC32C.send(:accelerated?) ? "the CPU's CRC instruction" : "the portable table code"
sweep = Bloomc.send(:build_features)[:avx2_sweep] ? "built for AVX2 too" : "portable only"
puts "#{RUBY_PLATFORM} (Ruby #{RUBY_VERSION}): #{order}-endian, CRC32C by #{crc}, continuous sweep #{sweep}"
