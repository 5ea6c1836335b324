# frozen_string_literal: true

# A bitwise CRC-32C written from the definition (reflected polynomial
# 0x82F63B78, init and final xor 0xFFFFFFFF), for spec/bloomc/crc32c_spec.rb.
module CRC32CReference
  POLY = 0x82F63B78

  module_function

  # crc: the checksum of the bytes before str, as Bloomc::CRC32C takes it.
  def checksum(str, crc = 0)
    c = crc ^ 0xFFFFFFFF
    str.each_byte do |b|
      c ^= b
      8.times { c = c.odd? ? (c >> 1) ^ POLY : c >> 1 }
    end
    c ^ 0xFFFFFFFF
  end
end
