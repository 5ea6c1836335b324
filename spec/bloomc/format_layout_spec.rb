# frozen_string_literal: true

require "spec_helper"

# The C core rewrites a mapped continuous filter's clock in the header
# (bf_continuous_store_clock), at places bf_format.h gives; lib/bloomc/format.rb
# writes and parses the same header. Both must describe one layout.
RSpec.describe "the file format's layout in C and in Ruby" do
  let(:defines) do
    source = File.read(File.expand_path("../../ext/bloomc/bf_format.h", __dir__))
    source.scan(/^#define (BF_FORMAT_\w+) (\d+)/).to_h { |name, value| [name, Integer(value)] }
  end
  let(:format) { Bloomc.const_get(:Format) }

  it "gives the header, trailer and alignment the sizes format.rb uses" do
    expect(defines.values_at("BF_FORMAT_HEADER", "BF_FORMAT_TRAILER", "BF_FORMAT_ALIGN"))
      .to eq([format::HEADER, format::TRAILER, format::ALIGN])
    expect(defines["BF_FORMAT_MAGIC_BYTES"]).to eq(format::MAGIC.bytesize)
  end

  it "finds the version, kind, flags, parameter count, parameters and checksum where format.rb writes them" do
    fields = [11, 22, 33]
    header = format.header(3, format::FLAG_OPEN, fields, 44, 55, 66, 2)
    u16 = ->(name) { header.unpack1("S<", offset: defines.fetch(name)) }
    expect(%w[BF_FORMAT_VERSION_AT BF_FORMAT_KIND_AT BF_FORMAT_FLAGS_AT BF_FORMAT_NFIELDS_AT].map(&u16))
      .to eq([2, 3, format::FLAG_OPEN, fields.size])
    expect(header.unpack("Q<3", offset: defines.fetch("BF_FORMAT_HEADER"))).to eq(fields)
    crc_at = defines.fetch("BF_FORMAT_HEADER") + 8 * fields.size + defines.fetch("BF_FORMAT_TRAILER") - 4 # bf_format_header_crc_at
    expect(header.unpack1("L<", offset: crc_at)).to eq(Bloomc::CRC32C.checksum(header.byteslice(0, crc_at)))
    expect(header.bytesize % defines.fetch("BF_FORMAT_ALIGN")).to eq(0)
  end

  it "puts the continuous filter's clock at the parameters the core rewrites" do
    core = File.read(File.expand_path("../../ext/bloomc/bf_continuous.h", __dir__))
    clock_field = Integer(core[/^#define BF_CONT_CLOCK_FIELD (\d+)/, 1])
    filter = Bloomc::ContinuousBloomFilter.new(64, 2, 60)
    3.times { filter.inc_time_slot }
    fields, = filter.send(:export_core)
    expect(fields[clock_field, 2]).to eq([filter.send(:current_slot), filter.ticks])
  end
end
