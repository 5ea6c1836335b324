# frozen_string_literal: true

require "tmpdir"

# The matrix runner: enumerates the public methods, builds every call of a
# recipe or constructor form, makes it and checks the outcome, the
# receiver's model and snapshot, the new object, and the timer threads.
module BadInputMatrix
  module_function

  # The public methods of a class or module, from the loaded code: a
  # class's own and those of every Bloomc class or module among its
  # ancestors (Bloomc::Filter, the base of every filter kind, and the
  # modules they include), less what the class undefines of them.
  def public_methods_of(mod)
    return mod.singleton_methods(false) unless mod.is_a?(Class)

    ours = mod.ancestors.select { |ancestor| ancestor == mod || ancestor.name&.start_with?("Bloomc::") }
    names = ours.flat_map { |ancestor| ancestor.public_instance_methods(false) }.uniq & mod.public_instance_methods
    # Psych's hooks, which YAML calls with its own Coder (format_spec
    # covers the round trip and the refusals).
    names - %i[encode_with init_with]
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

  # [args, kw, allowed] for each value of VALUES in one place of a call: at
  # an index of args, at a keyword (a Symbol), or after args (nil); the
  # block gives what the value must do.
  def value_calls(args, kw, place)
    BARE_VALUES.map do |value|
      call = case place
             when Integer then [args.dup.tap { |a| a[place] = value }, kw]
             when nil then [args + [value], kw]
             else [args, kw.merge(place => value)]
             end
      call << yield(value)
    end
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
    rule = ->(kind) { ->(value) { adjust[outcome(kind, value, receiver)] } }
    calls = []
    base = recipe[:base] ? recipe[:base].call(receiver) : adjust[[:ok]]
    ((params.size - opt)..params.size).each do |argc|
      args = defaults.first(argc)
      calls << [args, kw_defaults, base]
      params.first(argc).each_with_index { |(kind, _), i| calls.concat(value_calls(args, kw_defaults, i, &rule[kind])) }
    end
    kw_params.each { |key, (kind, _)| calls.concat(value_calls(defaults, kw_defaults, key, &rule[kind])) }
    calls.concat(value_calls(defaults, kw_defaults, nil) { [ArgumentError] })
  end

  def allowed?(allowed, error)
    undocumented = allowed - [:ok] - DOCUMENTED
    raise "the matrix itself expects undocumented #{undocumented}" unless undocumented.empty?

    allowed.include?(error.class) || (error.is_a?(Bloomc::Error) && (allowed - [:ok]).any?) ||
      (error.is_a?(SystemCallError) && allowed.include?(SystemCallError)) # Errno::* for paths
  end

  # [the block's result, nil] or [nil, what it raised], a signal or exit
  # apart: NoMemoryError and friends are not StandardErrors.
  def attempt
    [yield, nil]
  rescue SignalException, SystemExit
    raise
  rescue Exception => e # rubocop:disable Lint/RescueException
    [nil, e]
  end

  def raise_problems(desc, allowed, error)
    return [] if allowed?(allowed, error)

    expected = allowed == [:ok] ? "success" : allowed.join(" or ")
    ["#{desc} raised #{error.class} (#{error.message[0, 100]}), expected #{expected}"]
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
    block = recipe[:block] ? proc { |x| yielded << x } : nil
    result, error = attempt { receiver.obj.public_send(name, *args, **kw, &block) }
    problems = []
    if error
      problems.concat(raise_problems(desc, allowed, error))
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

  # Checks a freshly made object against the arguments and its class's
  # NEW_OBJECT_CHECKS; returns problems.
  def check_new(desc, obj, expect)
    problems = expect.filter_map do |attr, value|
      actual = obj.public_send(attr)
      next if actual.eql?(value) || (value.is_a?(Float) && value.nan? && actual.nan?)

      "#{desc}.#{attr} is #{label_of(actual)}, expected #{label_of(value)}"
    end
    _, check = NEW_OBJECT_CHECKS.find { |classes, _| classes.any? { |klass| obj.is_a?(klass) } }
    check ? problems.concat(check.call(desc, obj)) : problems
  end

  # What a constructor's rules see in place of a receiver (no form takes a
  # position or a bucket value).
  class NoReceiver
    def size = 0
    def max = 0
  end

  # The calls of one constructor form: the valid one, each value in each
  # positional parameter (and, with short_forms, with the parameters after
  # it left out), in each keyword, one positional argument too many and
  # each keyword the form refuses.
  def calls_for_new(form)
    params = form.fetch(:params, [])
    kw_params = form.fetch(:kw, {})
    defaults = params.map(&:last)
    kw_defaults = kw_params.transform_values(&:last)
    rule = ->(kind) { ->(value) { outcome(kind, value, NoReceiver.new) } }
    calls = [[defaults, kw_defaults, [:ok]]]
    params.each_with_index do |(kind, _), i|
      calls.concat(value_calls(defaults, kw_defaults, i, &rule[kind]))
      next unless i < params.size - 1 && form[:short_forms]

      calls.concat(value_calls(defaults.first(i + 1), kw_defaults, i) { [ArgumentError] })
    end
    kw_params.each { |key, (kind, _)| calls.concat(value_calls(defaults, kw_defaults, key, &rule[kind])) }
    calls.concat(value_calls(defaults, kw_defaults, nil, &rule[form.fetch(:extra_positional, :never)]))
    form.fetch(:extra_kw, {}).each { |key, kind| calls.concat(value_calls(defaults, kw_defaults, key, &rule[kind])) }
    calls
  end

  # One constructor form: params and kw as in the recipes, plus expect:
  # ->(args, kw) { {attr => value} } for a success.
  def run_new(klass, form)
    calls_for_new(form).flat_map do |args, kw, allowed|
      BadInputMatrix.calls += 1
      desc = describe_call(klass.name, :new, args, kw)
      threads_before = timer_threads
      obj, error = attempt { klass.new(*args, **kw) }
      if error
        raise_problems(desc, allowed, error) +
          ((timer_threads - threads_before).empty? ? [] : ["#{desc} raised and left a timer thread"])
      elsif !allowed.include?(:ok)
        ["#{desc} made #{obj.inspect[0, 80]}, expected #{allowed.join(' or ')}"]
      else
        check_new(desc, obj, form[:expect].call(args, kw))
      end
    end
  end
end
