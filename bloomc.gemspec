# frozen_string_literal: true

require_relative "lib/bloomc/version"

Gem::Specification.new do |spec|
  spec.name = "bloomc"
  spec.version = Bloomc::VERSION
  spec.authors = ["The bloomc developers"]
  spec.summary = "Fast, compact Bloom filters for Ruby, written in C (a drop-in for bloombroom)"
  spec.description = <<~DESC
    Bloom filters whose work is done in C: bit and bucket fields, MurmurHash3
    and FNV hashing, and the plain Bloom filter, with the API of the pure-Ruby
    gem bloombroom so that code written for it runs unchanged, only faster and
    in less memory.
  DESC
  spec.license = "MIT"
  spec.required_ruby_version = ">= 3.0"

  # lib/**/*.lua: the Redis filters' scripts, read at require time; the front
  # page of `bloomc serve` and the JavaScript reader it serves.
  spec.files = Dir["lib/**/*.{rb,lua,html}", "ext/bloomc/*.{c,h,rb}", "ext/bloomc/depend", "sig/**/*.rbs", "exe/*",
                   "js/src/*.{js,ts}", "js/package.json", "js/README.md", "docs/*.md", "README.md", "LICENSE", "CHANGELOG.md"]
  spec.bindir = "exe"
  spec.executables = ["bloomc"]
  spec.require_paths = ["lib"]
  # The command's progress bar on a terminal.
  spec.add_dependency "ruby-progressbar", "~> 1.13"
  spec.extensions = ["ext/bloomc/extconf.rb"]
  spec.metadata["rubygems_mfa_required"] = "true"
end
