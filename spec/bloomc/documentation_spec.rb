# frozen_string_literal: true

require "spec_helper"
require "rbconfig"
require "rdoc"
require "tmpdir"

# `ri` must find every public method of every public class and module under
# Bloomc, the ones written in C included: RDoc finds a C method only through a
# literal rb_define_* call on a class it knows (see the comments for RDoc in
# ext/bloomc/*.c), and a method defined in a loop only through a :method:
# entry in its class's Ruby file; the methods every filter kind shares are
# documented once, on Bloomc::Filter (ext/bloomc/filter.c). This builds ri
# data the way `gem install` does (rdoc with the gemspec's rdoc_options over
# its source_paths and extra_rdoc_files) and looks every method, class and
# module up in it.
RSpec.describe "ri documentation" do
  root = File.expand_path("../..", __dir__)

  # The optional parts, where their gems are installed: their classes are
  # public API too.
  optional = { "bloomc/rack" => ["rack"], "bloomc/redis" => ["redis"] }

  # Every public class and module under Bloomc, by name, loaded.
  def self.namespaces(mod, seen = {})
    return seen if seen[mod.name]

    seen[mod.name] = mod
    mod.constants(false).sort.each do |name|
      value = mod.const_get(name, false)
      next unless value.is_a?(Module) && value.name&.start_with?("#{mod.name}::")
      next if value.name == "Bloomc::CLI" # exe/bloomc's implementation (bloomc --help documents it)

      namespaces(value, seen) unless nodoc?(mod.const_source_location(name))
    end
    seen
  end

  # Whether the comment above a Ruby definition (file, line) says :nodoc:,
  # as the internal helpers that must be public for the gem's own use do.
  def self.nodoc?(location)
    return false if location.nil? || location.empty?

    lines = File.readlines(location[0])
    index = location[1] - 1
    return true if lines[index].include?(":nodoc:")

    index -= 1
    index -= 1 while index >= 0 && lines[index] =~ /\A\s*#/ && !lines[index].include?(":nodoc:")
    index >= 0 && lines[index] =~ /\A\s*#.*:nodoc:/
  end

  # The ri names of the public methods mod itself defines, but those marked
  # :nodoc:. A class's new is documented by its initialize. Hooks Ruby calls,
  # and what Struct.new defines (a Struct's class comment names its members),
  # are not the API.
  def self.public_methods_of(mod)
    struct = mod.is_a?(Class) && mod < Struct
    instance = mod.public_instance_methods(false).reject { |m| nodoc?(mod.instance_method(m).source_location) }
    instance -= mod.members.flat_map { |m| [m, :"#{m}="] } if struct
    singleton = mod.singleton_class.public_instance_methods(false).reject { |m| nodoc?(mod.method(m).source_location) }
    singleton -= %i[included extended prepended inherited]
    singleton -= %i[new [] members inspect keyword_init?] if struct
    names = instance.map { |m| "#{mod.name}##{m}" } + singleton.map { |m| "#{mod.name}::#{m}" }
    initialize = mod.is_a?(Class) && mod.private_method_defined?(:initialize, false)
    names << "#{mod.name}::new" if initialize && !struct && !nodoc?(mod.instance_method(:initialize).source_location)
    names.uniq
  end

  # A method with a comment in ri (an attribute's writer: its attribute's),
  # or an alias of one.
  def documented?(store, full_name)
    owner, separator, name = full_name.rpartition(/#|::/)
    method = begin
      store.load_method(owner, "#{separator}#{name}")
    rescue RDoc::Store::MissingFileError
      raise unless name.end_with?("=")

      store.load_method(owner, "#{separator}#{name.delete_suffix('=')}")
    end
    !blank?(method.comment) || !method.is_alias_for.nil?
  rescue RDoc::Store::MissingFileError
    false
  end

  # A kind's hot add and include? (direct calls of its core, made by a macro
  # RDoc does not read) stand in for Bloomc::Filter's and are documented
  # there once; ri finds them there, through the kind's superclass.
  def documented_on_filter?(store, full_name)
    owner, separator, name = full_name.rpartition("#")
    return false if separator.empty?

    klass = Object.const_get(owner)
    klass.is_a?(Class) && klass < Bloomc::Filter && Bloomc::Filter.public_method_defined?(name) &&
      documented?(store, "Bloomc::Filter##{name}")
  end

  # ri's comments are RDoc::Markup::Documents once loaded: a class's holds
  # one Document per file that defines it, any of which may be empty.
  def blank?(comment)
    case comment
    when RDoc::Markup::Document then comment.parts.all? { |part| blank?(part) }
    when RDoc::Markup::BlankLine then true
    when String then comment.strip.empty?
    else false
    end
  end

  it "has ri documentation for every public method, the C ones included" do
    optional.each do |feature, gems|
      require feature if gems.all? { |gem| OptionalGems.installed?(gem) }
    end
    spec = Gem::Specification.load(File.join(root, "bloomc.gemspec"))
    Dir.mktmpdir("bloomc-ri") do |tmp|
      dir = File.join(tmp, "ri") # rdoc writes only into a new directory or its own
      args = ["--ri", "--quiet", "--output", dir, *spec.rdoc_options, *spec.source_paths, *spec.extra_rdoc_files]
      ok = system(RbConfig.ruby, "-rrdoc", "-e", "RDoc::RDoc.new.document(ARGV)", "--", *args,
                  chdir: root, out: File::NULL)
      expect(ok).to be(true), "rdoc failed"

      store = RDoc::Store.new(dir)
      store.load_cache
      namespaces = self.class.namespaces(Bloomc).values
      methods = namespaces.flat_map { |mod| self.class.public_methods_of(mod) }
      missing = methods.reject { |name| documented?(store, name) || documented_on_filter?(store, name) }
      # And every class and module but a Struct's (RDoc 6.4 keeps those as
      # constants, with their comment) says what it is.
      missing += namespaces.reject { |mod| mod.is_a?(Class) && mod < Struct }.map(&:name).reject do |name|
        !blank?(store.load_class(name).comment)
      rescue RDoc::Store::MissingFileError
        false
      end
      # And every public constant that is not a class or module says what it
      # is (ri shows "[not documented]" otherwise).
      missing += namespaces.flat_map do |mod|
        values = mod.constants(false).reject { |name| mod.const_get(name, false).is_a?(Module) }
        next [] if values.empty? || (mod.is_a?(Class) && mod < Struct)

        documented = begin
          store.load_class(mod.name).constants.reject { |c| blank?(c.comment) }.map(&:name)
        rescue RDoc::Store::MissingFileError
          []
        end
        (values.map(&:to_s) - documented).map { |name| "#{mod.name}::#{name}" }
      end
      expect(methods.size).to be > 300
      expect(missing).to be_empty, "ri has no documentation for:\n  #{missing.sort.join("\n  ")}"
    end
  end
end
