# frozen_string_literal: true

module Bloomc
  # member? and ===, over a class's include?, for everything that answers
  # include? of one key: the filters, in process and in Redis, and a
  # PeriodicFilter.
  module Membership
    # include?, by the name Set and Enumerable give it.
    #
    # key:: (String, Symbol, Integer)
    # Returns:: (Boolean) false: never added; true: probably added
    def member?(key) = include?(key)

    # include?, so that a filter works in case/when as a Set does:
    # <tt>when seen then next</tt>. An object that cannot be a key (nil, a
    # Float) is not held, as Regexp#=== answers false for a non-String.
    #
    # key:: (Object)
    # Returns:: (Boolean)
    def ===(key)
      include?(key)
    rescue TypeError
      false
    end
  end
end
