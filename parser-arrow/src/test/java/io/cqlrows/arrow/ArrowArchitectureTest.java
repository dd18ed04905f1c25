package io.cqlrows.arrow;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.cqlrows.testing.Architecture;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * cqlrows-arrow's shape: it builds on cqlrows-core and Arrow only (never on cqlrows-netty or the
 * command line, and never on Arrow's Netty allocator), and its public API is listed.
 */
class ArrowArchitectureTest {
  private static JavaClasses arrow;

  @BeforeAll
  static void importArrow() {
    arrow = Architecture.mainClasses("io.cqlrows.arrow");
  }

  @Test
  void importsTheWholeModule() {
    assertTrue(arrow.contain(ArrowSink.class.getName()));
    assertTrue(arrow.contain("io.cqlrows.arrow.PrimitiveVectorWriter"));
  }

  @Test
  void dependsOnCoreAndArrowOnly() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.cqlrows.netty..",
            "io.cqlrows.cli..",
            "org.apache.arrow.memory.netty..",
            "io.netty.channel..",
            "io.netty.handler..")
        .check(arrow);
  }

  @Test
  void everyPublicTypeIsListedInTheApiPage() {
    Set<String> listed = Architecture.listedTypes();
    assertEquals(Set.of(), Architecture.unlisted(arrow, listed), "public, not in docs/api.md");
    assertEquals(
        Set.of(),
        Architecture.staleListings(arrow, listed, "io.cqlrows.arrow"),
        "in docs/api.md, not a public top-level type");
  }
}
