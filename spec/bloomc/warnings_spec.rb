# frozen_string_literal: true

require "spec_helper"
require "open3"
require "rbconfig"

RSpec.describe "Loading bloomc under ruby -w" do
  lib = File.expand_path("../../lib", __dir__)

  def ruby_w(lib, code)
    Open3.capture3(RbConfig.ruby, "-w", "-I", lib, "-e", code)
  end

  it "fails the suite on a warning from the gem's files only (spec/support/own_warnings.rb)" do
    root = File.expand_path("../..", __dir__)
    expect(OwnWarnings.own?("#{root}/lib/bloomc/cli.rb:3: warning: method redefined; discarding old run\n")).to be(true)
    expect(OwnWarnings.own?("#{root}/lib/bloomc/bloomc.so: warning: method redefined; discarding old clear\n")).to be(true)
    expect(OwnWarnings.own?("#{root}/ext/bloomc/extconf.rb:1: warning: assigned but unused variable - x\n")).to be(true)
    expect(OwnWarnings.own?("/gems/rack-3.0.0/lib/rack.rb:1: warning: method redefined; discarding old call\n")).to be(false)
    expect(OwnWarnings.own?("#{root}/spec/bloomc/cli_spec.rb:9: warning: ambiguous first argument\n")).to be(false)
    expect($VERBOSE).to be(true)
  end

  it "sets apart Bundler's and RubyGems' own warnings only (the environment's)" do
    bundler = "/var/lib/gems/3.3.0/gems/bundler-2.3.15/lib/bundler/rubygems_ext.rb:149: warning: method redefined\n"
    rubygems = "/usr/lib/ruby/vendor_ruby/rubygems/dependency.rb:341: warning: previous definition of encode_with was here\n"
    ours = "#{File.expand_path('../../lib', __dir__)}/bloomc/cli.rb:3: warning: method redefined\n"
    other = "/gems/rack-3.0.0/lib/rack.rb:1: warning: method redefined; discarding old call\n"
    kept = [ours, other, "an error\n"]
    expect(OwnWarnings.without_tools([bundler, rubygems, *kept].join)).to eq(kept.join)
  end

  it "prints nothing" do
    _out, err, status = ruby_w(lib, 'require "bloomc"; require "bloomc/rack"; require "bloomc/periodic_filter"')
    expect(status).to be_success
    expect(OwnWarnings.without_tools(err)).to eq("")
  end

  it "says nothing from its own files when every entry point is loaded and each kind used" do
    code = <<~RUBY
      require "bloomc"
      %w[bloomc/cli bloomc/remote bloomc/bloombroom bloomc/periodic_filter bloomc/rack bloomc/serve bloomc/redis].each do |f|
        require f
      rescue LoadError # an optional gem (rack, puma, redis) not installed here
      end
      #{Kinds::SMALL_FILTER_SOURCE}
      Bloomc::Format::KINDS.each_value do |name|
        filter = small_filter(name)
        filter.include?("a")
        Bloomc.load(filter.dup.dump)
      end
    RUBY
    _out, err, status = ruby_w(lib, code)
    expect(status).to be_success, err
    own = err.lines.select { |line| OwnWarnings.own?(line) || line.include?("#{lib}/") }
    expect(own).to eq([])
  end
end
