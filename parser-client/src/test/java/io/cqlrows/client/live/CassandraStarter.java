package io.cqlrows.client.live;

import org.junit.platform.engine.TestTag;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Starts the live tests' Cassandra servers in the background as soon as the test plan is known,
 * when it holds tests that will ask for them: {@link CassandraServer} for tests tagged {@code
 * live}, the {@link TlsCassandra} ones for tests tagged {@code tls}. Their starts (10 to 40 s each)
 * then overlap each other and the tests that run before the first one needs a server, instead of
 * adding up. A test still asks for its server as before and waits until it is ready; a start that
 * failed in the background fails there, with the end of the server's log.
 *
 * <p>Registered through {@code META-INF/services/org.junit.platform.launcher
 * .TestExecutionListener}; called on the launcher's thread. Starts nothing for a plan without such
 * tests (e.g. {@code -DexcludedGroups=live}), or with an external server ({@value
 * CassandraServer#HOST_PROPERTY}) for the plain one.
 */
public final class CassandraStarter implements TestExecutionListener {
  private static final TestTag LIVE = TestTag.create("live");
  private static final TestTag TLS = TestTag.create("tls");

  @Override
  public void testPlanExecutionStarted(TestPlan plan) {
    boolean live = false;
    boolean tls = false;
    for (TestIdentifier root : plan.getRoots()) {
      for (TestIdentifier test : plan.getDescendants(root)) {
        live |= test.getTags().contains(LIVE);
        tls |= test.getTags().contains(TLS);
      }
    }
    if (tls) {
      TlsCassandra.startInBackground();
    }
    if (live) {
      Thread starter =
          new Thread(
              () -> {
                try {
                  CassandraServer.get();
                } catch (RuntimeException e) {
                  // remembered by CassandraServer: the first test that asks for the server fails
                  // with it
                }
              },
              "cassandra-start");
      starter.setDaemon(true);
      starter.start();
    }
  }
}
