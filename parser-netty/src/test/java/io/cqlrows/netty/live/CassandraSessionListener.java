package io.cqlrows.netty.live;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Stops the live tests' Cassandra when the JUnit Platform launcher session closes, that is after
 * the last test of the run in this JVM, passed or failed. Registered through
 * {@code META-INF/services/org.junit.platform.launcher.LauncherSessionListener}; called on the
 * launcher's thread. Does nothing if no server was started.
 */
public final class CassandraSessionListener implements LauncherSessionListener {

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    CassandraServer.stop();
  }
}
