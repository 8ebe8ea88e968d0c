/**
 * The contract suite every queue engine passes (JUnit 5 tests to extend), the reference model the
 * model-based tests compare against, and the stress tests.
 */
module io.switchboard.tck {
  requires transitive io.switchboard.core;
  requires transitive org.junit.jupiter.api;
  requires transitive org.junit.jupiter.params;
  requires static org.jspecify;

  exports io.switchboard.tck;
  exports io.switchboard.tck.model;
  exports io.switchboard.tck.routing;
  exports io.switchboard.tck.stress;

  // JUnit finds and runs the contract tests by reflection.
  opens io.switchboard.tck to
      org.junit.platform.commons;
  opens io.switchboard.tck.model to
      org.junit.platform.commons;
  opens io.switchboard.tck.routing to
      org.junit.platform.commons;
  opens io.switchboard.tck.stress to
      org.junit.platform.commons;
}
