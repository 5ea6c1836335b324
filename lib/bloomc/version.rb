# frozen_string_literal: true

module Bloomc
  VERSION = "0.1.0"
end
