package io.cqlrows.netty;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.cqlrows.testing.Architecture;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * parser-netty's shape: no package cycles, internals used only through what the supported packages
 * expose, a listed public API.
 */
class NettyArchitectureTest {
  private static JavaClasses netty;

  @BeforeAll
  static void importNetty() {
    netty = Architecture.mainClasses("io.cqlrows.netty");
  }

  @Test
  void importsTheWholeModule() {
    assertTrue(netty.contain(CqlPipeline.class.getName()));
    assertTrue(netty.contain("io.cqlrows.netty.internal.BytesToFrameDecoder"));
  }

  @Test
  void packagesAreFreeOfCycles() {
    Architecture.noPackageCycles().check(netty);
  }

  @Test
  void noLibraryClassUsesTheCommandLine() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.cqlrows.cli..")
        .allowEmptyShould(true)
        .check(netty);
  }

  @Test
  void internalsNeverTouchThePipelineOwner() {
    // CqlPipeline owns handler names and rewiring; a decoder that imported it would rewire the
    // pipeline itself again.
    noClasses()
        .that()
        .resideInAPackage("io.cqlrows.netty.internal..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.cqlrows.netty")
        .check(netty);
  }

  @Test
  void everyPublicTypeIsListedInTheApiPage() {
    Set<String> listed = Architecture.listedTypes();
    assertEquals(Set.of(), Architecture.unlisted(netty, listed), "public, not in docs/api.md");
    assertEquals(
        Set.of(),
        Architecture.staleListings(netty, listed, "io.cqlrows.netty"),
        "in docs/api.md, not a public top-level type");
  }
}
