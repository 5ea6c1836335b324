# frozen_string_literal: true

require "tmpdir"

# The matrix runner: enumerates the public methods, builds every call of a
# recipe, makes it and checks the outcome, the receiver's model and its
# snapshot, and the timer threads; constructors likewise.
module BadInputMatrix
  module_function

  # The public methods of a class or module, from the loaded code.
  def public_methods_of(mod)
    if mod.is_a?(Class)
      # A filter's shared methods are Bloomc::Filter's (ext/bloomc/filter.c).
      names = mod.ancestors.take_while { |a| a != Object }.grep(Class).flat_map { |c| c.public_instance_methods(false) }
      names &= mod.public_instance_methods
      names |= Bloomc::Inspect.public_instance_methods(false) if mod.include?(Bloomc::Inspect)
      names |= Bloomc::Batch.public_instance_methods(false) if mod.include?(Bloomc::Batch)
      names |= Bloomc::Stats.public_instance_methods(false) if mod.include?(Bloomc::Stats)
      names |= Bloomc::SetOps.public_instance_methods(false) if mod.include?(Bloomc::SetOps)
      names |= Bloomc::Persistence.public_instance_methods(false) if mod.include?(Bloomc::Persistence)
      names |= Bloomc::Metadata.public_instance_methods(false) if mod.include?(Bloomc::Metadata)
      names |= Bloomc::Sizing.public_instance_methods(false) if mod.include?(Bloomc::Sizing)
      names |= Bloomc::HashFunction.public_instance_methods(false) if mod.include?(Bloomc::HashFunction)
      names |= Bloomc::Mapped.public_instance_methods(false) if mod.include?(Bloomc::Mapped)
      names |= Bloomc::Pages.public_instance_methods(false) if mod.include?(Bloomc::Pages)
      # Psych's hooks, which YAML calls with its own Coder (format_spec
      # covers the round trip and the refusals).
      names - %i[encode_with init_with]
    else
      mod.singleton_methods(false)
    end
  end

  # The receiver's snapshot and its metadata, which #== and so the
  # snapshots ignore.
  def state_of(receiver)
    [receiver.snapshot, receiver.obj.respond_to?(:metadata) ? receiver.obj.metadata : nil]
  end

  def describe_call(receiver, name, args, kw)
    parts = args.map { |a| label_of(a) } + kw.map { |k, v| "#{k}: #{label_of(v)}" }
    "#{receiver}.#{name}(#{parts.join(', ')})"
  end

  def label_of(value)
    found = VALUES.find { |_, v| v.equal?(value) }
    return found[0] if found

    text = value.inspect
    text.size > 40 ? "#{text[0, 37]}..." : text
  end

  # Every call of one recipe: [args, kw, allowed outcomes]. The valid call
  # first, then each value in each position of every arity, then one
  # argument too many.
  def calls_for(recipe, receiver)
    params = recipe.fetch(:params, [])
    opt = recipe.fetch(:opt, 0)
    kw_params = recipe.fetch(:kw, {})
    default = ->(d) { d.respond_to?(:call) ? d.call(receiver) : d }
    defaults = params.map { |_, d| default[d] }
    kw_defaults = kw_params.transform_values { |_, d| default[d] }
    write = recipe[:write] && receiver.write_frozen?
    refused = recipe[:refuse]&.call(receiver) # errors this receiver gives any call it accepts
    adjust = lambda do |allowed|
      allowed = (allowed - [:ok] + refused).uniq if refused && allowed.include?(:ok)
      write ? (allowed - [:ok] + [FrozenError]).uniq : allowed
    end
    calls = []
    base = recipe[:base] ? recipe[:base].call(receiver) : adjust[[:ok]]
    ((params.size - opt)..params.size).each do |argc|
      calls << [defaults.first(argc), kw_defaults, base]
      params.first(argc).each_with_index do |(kind, _), i|
        VALUES.each do |_, value|
          args = defaults.first(argc)
          args[i] = value
          calls << [args, kw_defaults, adjust[outcome(kind, value, receiver)]]
        end
      end
    end
    kw_params.each do |key, (kind, _)|
      VALUES.each { |_, value| calls << [defaults, kw_defaults.merge(key => value), adjust[outcome(kind, value, receiver)]] }
    end
    VALUES.each { |_, value| calls << [defaults + [value], kw_defaults, [ArgumentError]] }
    calls
  end

  def allowed?(allowed, error)
    undocumented = allowed - [:ok] - DOCUMENTED
    raise "the matrix itself expects undocumented #{undocumented}" unless undocumented.empty?

    allowed.include?(error.class) || (error.is_a?(Bloomc::Error) && (allowed - [:ok]).any?) ||
      (error.is_a?(SystemCallError) && allowed.include?(SystemCallError)) # Errno::* for paths
  end

  # Calls; returns the problems found.
  def run_call(receiver, name, recipe, args, kw, allowed)
    if recipe[:in_tmpdir] # a call that writes files: in an empty directory, checked there
      return Dir.mktmpdir { |dir| Dir.chdir(dir) { run_call(receiver, name, recipe.merge(in_tmpdir: false), args, kw, allowed) } }
    end

    BadInputMatrix.calls += 1
    desc = describe_call(receiver.label, name, args, kw)
    before = state_of(receiver)
    threads_before = timer_threads
    yielded = []
    result = error = nil
    begin
      result = if recipe[:block]
                 receiver.obj.public_send(name, *args, **kw) { |x| yielded << x }
               else
                 receiver.obj.public_send(name, *args, **kw)
               end
    rescue SignalException, SystemExit
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- NoMemoryError and friends are not StandardErrors
      error = e
    end
    problems = []
    if error
      unless allowed?(allowed, error)
        expected = allowed == [:ok] ? "success" : allowed.join(" or ")
        problems << "#{desc} raised #{error.class} (#{error.message[0, 100]}), expected #{expected}"
      end
      problems << "#{desc} raised #{error.class} and changed the receiver" unless state_of(receiver) == before
    elsif !allowed.include?(:ok)
      problems << "#{desc} returned #{label_of(result)}, expected #{allowed.join(' or ')}"
      receiver.resync
    else
      verdict = recipe[:ok].call(receiver, args, kw, result, yielded)
      problems << "#{desc} returned #{label_of(result)}: wrong#{": #{verdict}" if verdict.is_a?(String)}" unless verdict == true
    end
    if name == :start_timer && args.empty?
      problems.concat(timer_check(desc, receiver, error, threads_before))
    elsif !(left = timer_threads - threads_before).empty?
      problems << "#{desc} left #{left.size} timer thread(s) running"
      left.each(&:kill).each { |t| finished?(t) }
    end
    problems.concat(receiver.problems.map { |p| "after #{desc}: #{p}" })
    problems
  end

  # After start_timer: a success must leave a live timer thread (waiting for
  # its first tick), which stop_timer then ends; a raise must leave no thread.
  def timer_check(desc, receiver, error, threads_before)
    problems = []
    started = timer_threads - threads_before
    if error.nil?
      problems << "#{desc}: timer_running? is false right after start_timer" unless receiver.obj.timer_running?
      started.each do |thread|
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 2
        Thread.pass while thread.alive? && thread.status != "sleep" &&
            Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
        next if thread.alive?

        reason = begin
          thread.value && "ended"
        rescue Exception => e # rubocop:disable Lint/RescueException
          "died with #{e.class}: #{e.message[0, 80]}"
        end
        problems << "#{desc}: returned self but its timer thread #{reason} (ttl #{label_of(receiver.obj.ttl)})"
      end
      run_call(receiver, :stop_timer, CONTINUOUS_BLOOM_FILTER[:stop_timer], [], {}, [:ok]).each { |p| problems << p }
    end
    left = started.reject { |t| finished?(t) }
    unless left.empty?
      problems << "#{desc} #{error ? "raised #{error.class}" : 'and stop_timer'} but left #{left.size} timer thread(s) running"
      left.each(&:kill).each { |t| finished?(t) }
    end
    problems
  end

  # Whether a thread ends within half a second (join re-raises what killed it).
  def finished?(thread)
    thread.join(0.5)
  rescue Exception # rubocop:disable Lint/RescueException
    true
  end

  def with_quiet_threads
    saved = Thread.report_on_exception
    Thread.report_on_exception = false
    yield
  ensure
    Thread.report_on_exception = saved
  end

  # The continuous filters' timer threads alive now.
  def timer_threads = Thread.list.select { |t| t.name == "bloomc timer" && t.alive? }

  # Checks a freshly made object against the arguments; returns problems.
  def check_new(desc, obj, expect)
    problems = []
    expect.each do |attr, value|
      actual = obj.public_send(attr)
      next if actual.eql?(value) || (value.is_a?(Float) && value.nan? && actual.nan?)

      problems << "#{desc}.#{attr} is #{label_of(actual)}, expected #{label_of(value)}"
    end
    case obj
    when Bloomc::BitField, Bloomc::BitBucketField
      problems << "#{desc} is not all zero" unless obj.total_set.zero? && obj.all?(&:zero?)
    when Bloomc::BinaryFuseFilter
      problems << "#{desc}: include? broken" unless obj.include_all(obj.size.zero? ? [] : ["k", 1]).all?
    when Bloomc::BloomFilter, Bloomc::BlockedBloomFilter, Bloomc::CountingBloomFilter, Bloomc::SpectralBloomFilter, Bloomc::BitwiseBloomFilter,
         Bloomc::StableBloomFilter, Bloomc::A2BloomFilter, Bloomc::ScalableBloomFilter, Bloomc::CuckooFilter
      problems << "#{desc}: add/include? broken" unless obj.size.zero? && obj.add("probe").equal?(obj) && obj.include?("probe")
    when Bloomc::ContinuousBloomFilter
      problems << "#{desc}: add/include? broken" unless obj.ticks.zero? && obj.add("probe").equal?(obj) && obj.include?("probe")
      if obj.ttl >= Bloomc::ContinuousBloomFilter::MIN_TIMER_TTL
        harness = ContinuousHarness.new(desc, obj, ["probe"])
        recipe = CONTINUOUS_BLOOM_FILTER[:start_timer]
        problems.concat(with_quiet_threads { run_call(harness, :start_timer, recipe, [], {}, [:ok]) })
      end
    end
    problems
  end

  # One constructor form: params and kw as in the recipes, plus expect:
  # ->(args, kw) { {attr => value} } for a success.
  def run_new(klass, form)
    problems = []
    params = form.fetch(:params, [])
    kw_params = form.fetch(:kw, {})
    defaults = params.map(&:last)
    kw_defaults = kw_params.transform_values(&:last)
    ctx = Struct.new(:size, :max).new(0, 0)
    calls = [[defaults, kw_defaults, [:ok]]]
    params.each_with_index do |(kind, _), i|
      VALUES.each do |_, value|
        args = defaults.dup
        args[i] = value
        calls << [args, kw_defaults, outcome(kind, value, ctx)]
      end
      # fewer arguments than the form needs
      next unless i < params.size - 1 && form[:short_forms]

      VALUES.each do |_, value|
        args = defaults.first(i + 1)
        args[i] = value
        calls << [args, kw_defaults, [ArgumentError]]
      end
    end
    kw_params.each do |key, (kind, _)|
      VALUES.each { |_, value| calls << [defaults, kw_defaults.merge(key => value), outcome(kind, value, ctx)] }
    end
    extra = form.fetch(:extra_positional, :never)
    VALUES.each { |_, value| calls << [defaults + [value], kw_defaults, outcome(extra, value, ctx)] }
    form.fetch(:extra_kw, {}).each do |key, kind|
      VALUES.each { |_, value| calls << [defaults, kw_defaults.merge(key => value), outcome(kind, value, ctx)] }
    end

    calls.each do |args, kw, allowed|
      BadInputMatrix.calls += 1
      desc = describe_call(klass.name, :new, args, kw)
      threads_before = timer_threads
      begin
        obj = klass.new(*args, **kw)
      rescue SignalException, SystemExit
        raise
      rescue Exception => e # rubocop:disable Lint/RescueException
        unless allowed?(allowed, e)
          expected = allowed == [:ok] ? "success" : allowed.join(" or ")
          problems << "#{desc} raised #{e.class} (#{e.message[0, 100]}), expected #{expected}"
        end
        problems << "#{desc} raised and left a timer thread" unless (timer_threads - threads_before).empty?
        next
      end
      unless allowed.include?(:ok)
        problems << "#{desc} made #{obj.inspect[0, 80]}, expected #{allowed.join(' or ')}"
        next
      end
      problems.concat(check_new(desc, obj, form[:expect].call(args, kw)))
    end
    problems
  end
end
