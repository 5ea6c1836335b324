# frozen_string_literal: true

require "spec_helper"
require "bloomc/bloombroom"

# sig/bloomc.rbs must declare every public method the classes really have,
# and nothing they lack.
RSpec.describe "sig/bloomc.rbs" do
  declarations = Signatures.declarations("bloomc.rbs")
  classes = {}
  walk = lambda do |decls, namespace|
    decls.each do |decl|
      next unless decl.is_a?(RBS::AST::Declarations::Class) || decl.is_a?(RBS::AST::Declarations::Module)

      name = [namespace, decl.name.to_s].compact.join("::")
      classes[name] = decl
      walk.call(decl.members, name)
    end
  end
  walk.call(declarations, nil)

  def declared(decl, kind)
    decl.members.grep(RBS::AST::Members::MethodDefinition).select { |m| m.kind == kind }.map(&:name)
  end

  # The modules of bloomc a declaration includes, with those its superclass
  # and those modules include, as declared.
  declared_modules = lambda do |name|
    decl = classes.fetch(name)
    mine = decl.members.grep(RBS::AST::Members::Include).map { |m| "Bloomc::#{m.name}" }.select { |m| classes.key?(m) }
    mine += declared_modules.call("Bloomc::#{decl.super_class.name}") if decl.is_a?(RBS::AST::Declarations::Class) && decl.super_class
    mine + mine.flat_map { |m| declared_modules.call(m) }
  end

  %w[Bloomc::BitField Bloomc::BitBucketField].each do |name|
    it "declares exactly the public instance methods of #{name}" do
      klass = Object.const_get(name)
      ours = [klass, Bloomc.const_get(:Inspect)]
      actual = klass.public_instance_methods.select { |m| ours.include?(klass.instance_method(m).owner) }
      expect(declared(classes.fetch(name), :instance).sort).to eq((actual + [:initialize]).uniq.sort)
    end
  end

  # Bloomc::Filter declares the methods of its own (and Inspect's inspect)
  # that every kind has; a kind, those it has beside them (among them
  # Filter's k, size and mapped?, which some kinds undefine), and may
  # declare again, with a type of its own, one of Filter's that it defines
  # itself. The modules' methods are checked with the modules.
  kinds = Bloomc::Format::KINDS.values.map { |name| Bloomc.const_get(name) }
  filter_own = lambda do |klass|
    klass.public_instance_methods.select { |m| [klass, Bloomc::Filter, Bloomc.const_get(:Inspect)].include?(klass.instance_method(m).owner) }
  end

  it "declares exactly the public instance methods of Bloomc::Filter that every kind has" do
    shared = filter_own.call(Bloomc::Filter).select { |m| kinds.all? { |kind| kind.public_method_defined?(m) } }
    expect(declared(classes.fetch("Bloomc::Filter"), :instance).sort).to eq(shared.sort)
  end

  kinds.each do |klass|
    it "declares exactly the public instance methods of #{klass} beside Bloomc::Filter's, as its subclass" do
      decl = classes.fetch(klass.name)
      expect(decl.super_class&.name&.to_s).to eq("Filter")
      inherited = declared(classes.fetch("Bloomc::Filter"), :instance)
      mine = declared(decl, :instance)
      again = mine & inherited
      undefined = again - klass.public_instance_methods(false)
      expect(undefined).to be_empty, "#{klass} declares again Filter's #{undefined}, which it does not define itself"
      expect((mine - again).sort).to eq((filter_own.call(klass) - inherited + [:initialize]).uniq.sort)
    end

    it "declares exactly the modules #{klass} includes" do
      actual = klass.ancestors.take_while { |a| a != Object }.grep_v(Class).map(&:name)
      actual -= %w[Bloomc::Inspect Bloomc::Mapped::Copy] # no declaration; prepended by Mapped
      expect(declared_modules.call(klass.name).uniq.sort).to eq(actual.sort)
    end
  end

  # (private constants of Bloomc: reached by const_get)
  internal = %i[Batch Stats PartStats SetOps Sizing HashFunction Persistence Mapped Pages Membership].to_h { |name| [name, Bloomc.const_get(name)] }
  [*internal.values, internal[:Persistence]::ClassMethods, internal[:Mapped]::ClassMethods, internal[:Pages]::New].each do |mod|
    it "declares exactly the public instance methods of #{mod}" do
      expect(declared(classes.fetch(mod.name), :instance).sort).to eq(mod.public_instance_methods(false).sort)
    end
  end

  # bloomc/redis, where the redis gem is installed (the Gemfile has it).
  redis_api = begin
    require "bloomc/redis"
    true
  rescue LoadError
    false
  end
  if redis_api
    %w[BloomFilter CountingBloomFilter ContinuousBloomFilter ScalableBloomFilter SlidingBloomFilter].each do |kind|
      it "declares exactly the public instance methods and modules of Bloomc::Redis::#{kind}" do
        klass = Bloomc::Redis.const_get(kind)
        ours = ->(owner) { owner.name.to_s.start_with?("Bloomc::Redis::") || owner == Bloomc.const_get(:Inspect) }
        actual = klass.public_instance_methods.select { |m| ours.call(klass.instance_method(m).owner) }
        expect(declared(classes.fetch("Bloomc::Redis::#{kind}"), :instance).sort).to eq((actual + [:initialize]).uniq.sort)
        modules = klass.ancestors.grep_v(Class).map(&:name).select { |name| classes.key?(name) }
        expect(declared_modules.call("Bloomc::Redis::#{kind}").sort).to eq(modules.sort)
      end
    end
  end

  it "declares exactly the public singleton methods of Bloomc::Stats" do
    expect(declared(classes.fetch("Bloomc::Stats"), :singleton).sort).to eq(Bloomc.const_get(:Stats).singleton_methods(false).sort)
  end

  %w[Bloomc::BlockedBloomFilter Bloomc::CountingBloomFilter Bloomc::SpectralBloomFilter Bloomc::BitwiseBloomFilter
     Bloomc::StableBloomFilter Bloomc::A2BloomFilter Bloomc::ScalableBloomFilter].each do |name|
    it "declares exactly the public singleton methods of #{name}" do
      expect(declared(classes.fetch(name), :singleton).sort).to eq(Object.const_get(name).singleton_methods(false).sort)
    end
  end

  it "declares every error class, each under its real superclass" do
    errors = Bloomc.constants.map { |c| Bloomc.const_get(c) }.select { |c| c.is_a?(Class) && c <= Bloomc::Error }
    errors.each do |klass|
      decl = classes.fetch(klass.name)
      expect(decl.super_class&.name&.to_s).to eq(klass.superclass.name.split("::").last)
    end
  end

  # bloomc/redis: its classes' public methods, inherited ones included (their
  # base class is private).
  %w[Bloomc::Redis::BloomFilter Bloomc::Redis::CountingBloomFilter Bloomc::Redis::ContinuousBloomFilter
     Bloomc::Redis::SlidingBloomFilter].each do |name|
    it "declares exactly the public instance and singleton methods of #{name}" do
      require "bloomc/redis"
      klass = Object.const_get(name)
      actual = klass.public_instance_methods - Object.public_instance_methods + %i[initialize inspect]
      actual << :=== unless klass.instance_method(:===).owner == Kernel # Object's own, overridden
      decl = classes.fetch(name)
      mixed_in = declared_modules.call(name).flat_map { |mod| declared(classes.fetch(mod), :instance) }
      expect((declared(decl, :instance) + mixed_in).uniq.sort).to eq(actual.uniq.sort)
      expect(declared(classes.fetch(name), :singleton).sort).to eq(klass.singleton_methods(false).sort)
    end
  end

  it "declares exactly the public singleton methods of Bloomc::CLI" do
    require "bloomc/cli"
    expect(declared(classes.fetch("Bloomc::CLI"), :singleton).sort).to eq(Bloomc::CLI.singleton_methods(false).sort)
  end

  { "Bloomc::FNV" => Bloomc::FNV, "Bloomc::CRC32C" => Bloomc::CRC32C, "Bloomc::Murmur3" => Bloomc::Murmur3, "Bloomc::BloomHelper" => Bloomc::BloomHelper,
    "Bloombroom::BloomHelper" => Bloombroom::BloomHelper, "Bloombroom::FNVFFI" => Bloombroom::FNVFFI }.each do |name, mod|
    it "declares exactly the public singleton methods of #{name}" do
      expect(declared(classes.fetch(name), :singleton).sort).to eq(mod.singleton_methods(false).sort)
    end
  end
end
