# frozen_string_literal: true

module Bloomc
  # The gem's version (the JavaScript reader's package has the same).
  VERSION = "0.1.0"
end
