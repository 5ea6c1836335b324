# frozen_string_literal: true

require "spec_helper"
require "tmpdir"

# The generated bad-input matrix; its tables and checks are in
# spec/support/bad_input/ (spec/support/bad_input_matrix.rb loads them).
RSpec.describe "Bad input matrix" do
  matrix = BadInputMatrix

  after(:all) do
    RSpec.configuration.reporter.message("bad-input matrix: #{matrix.calls} calls")
  end

  def expect_no_problems(problems)
    shown = problems.first(25).join("\n  ")
    more = problems.size > 25 ? "\n  ... and #{problems.size - 25} more" : ""
    expect(problems).to be_empty, -> { "#{problems.size} problem(s):\n  #{shown}#{more}" }
  end

  matrix::RECIPES.each do |mod, recipes|
    describe mod.name do
      it "has a calling recipe for every public method, and none for a method it lacks" do
        methods = matrix.public_methods_of(mod)
        expect(methods - recipes.keys).to be_empty, "no recipe for #{(methods - recipes.keys).inspect}"
        expect(recipes.keys - methods).to be_empty, "recipes for missing methods #{(recipes.keys - methods).inspect}"
      end

      matrix.public_methods_of(mod).sort.each do |name|
        label = mod.is_a?(Class) ? "##{name}" : ".#{name}"
        # save writes a file for every call: seconds per class
        it "#{label} raises only documented errors and leaves its receiver as it was", slow: name == :save do
          recipe = recipes[name]
          raise "no recipe for #{mod}#{label}: add one to its table in spec/support/bad_input/" unless recipe

          problems = []
          matrix.with_quiet_threads do
            matrix::RECEIVERS.fetch(mod).call.each do |receiver|
              matrix.calls_for(recipe, receiver).each do |args, kw, allowed|
                problems.concat(matrix.run_call(receiver, name, recipe, args, kw, allowed))
              end
            end
          end
          expect_no_problems(problems)
        end
      end

      next unless matrix::CONSTRUCTORS.key?(mod)

      matrix::CONSTRUCTORS.fetch(mod).each do |form|
        shape = [*form.fetch(:params, []).map { |kind, default| "#{kind}=#{default.inspect}" },
                 *form.fetch(:kw, {}).map { |key, (_, default)| "#{key}: #{default.inspect}" }]
        it ".new(#{shape.join(', ')}) raises only documented errors and makes working objects" do
          expect_no_problems(matrix.run_new(mod, form))
        end
      end
    end
  end
end
