# frozen_string_literal: true

require "spec_helper"

# Which of extconf.rb's platform checks the build passed
# (Bloomc.build_features, ext/bloomc/init.c). A check that failed by mistake
# (a typo in its test program) would only make the build fall back quietly:
# on Linux every one must pass, but those BLOOMC_FALLBACKS turned off.
RSpec.describe "the build's platform checks" do
  features = Bloomc.send(:build_features)
  checks = %i[fallocate posix_fallocate seek_hole mincore mincore_unsigned_vector populate hugepage_advice thp coarse_clock]

  it "are a frozen Hash of true or false for each check, and whether BLOOMC_FALLBACKS forced some" do
    expect(features).to be_frozen
    expect(features.keys).to match_array(checks + %i[avx2_sweep forced])
    expect(features.values).to all(be(true).or(be(false)))
    expect(Bloomc.send(:build_features)).not_to equal(features) # none shared between Ractors
  end

  it "are all passed on Linux, but those BLOOMC_FALLBACKS turned off" do
    skip "not Linux: which calls there are is the system's" unless RUBY_PLATFORM.include?("linux")
    forced = ENV.fetch("BLOOMC_FALLBACKS", "").split(",").map(&:strip)
    skip "built with BLOOMC_FALLBACKS, run without it: which it named is unknown" if features[:forced] && forced.empty?
    off = forced == ["1"] ? checks - [:mincore] : forced.map(&:to_sym)
    off << :mincore_unsigned_vector if off.include?(:mincore) # not asked without mincore
    expect(features.except(:avx2_sweep)).to eq(checks.to_h { |check| [check, !off.include?(check)] }.merge(forced: !forced.empty?))
  end

  it "builds the continuous sweep for AVX2 as well on x86-64 only (a clone picked at load by the CPU)" do
    x86 = RbConfig::CONFIG["host_cpu"].match?(/x86_64|amd64/)
    skip "x86-64, but not with GCC or Clang on glibc: whether clones are built is the compiler's" if x86 && !features[:avx2_sweep]
    expect(features[:avx2_sweep]).to be(x86)
  end

  unless features[:mincore]
    it "has resident bytes raise NotImplementedError, having no mincore" do
      filter = Bloomc::BloomFilter.new(4 << 23, 3) # 4 MiB: cells of their own mapping
      expect { filter.send(:resident_bytes) }.to raise_error(NotImplementedError, /no mincore/)
    end
  end
end
