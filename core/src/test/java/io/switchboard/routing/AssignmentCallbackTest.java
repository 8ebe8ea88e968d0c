package io.switchboard.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.routing.spi.WorkspaceCodec;
import io.switchboard.routing.spi.WorkspaceStore;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A workflow's assignment callback and a workspace's callback secret in core (docs/routing.md,
 * "Assignment callbacks"): the URL checked with its own code, the secret made at creation (or with
 * the first callback workflow), rotated, kept by the stores' codec, and hidden from {@code
 * toString}.
 */
class AssignmentCallbackTest {

  private final ManualClock clock = ManualClock.create();

  private Workspaces workspaces(WorkspaceStore store, Router defaultRouter) {
    return new Workspaces(
        defaultRouter, WorkspaceSettings.DEFAULTS, store, WorkspaceRouters.memory(clock));
  }

  private static Workflow support(Optional<AssignmentCallback> callback) {
    return new Workflow(
            "support", List.of(), List.of(WorkflowTarget.queue("general")), Optional.empty())
        .withAssignmentCallback(callback);
  }

  @Test
  void badUrls_areRefusedWithInvalidCallbackUrl_sayingWhatIsAllowedAndWhatWasGiven() {
    for (String bad :
        List.of(
            "",
            "ftp://example.com/x",
            "example.com/x",
            "http:///x",
            "http://u:p@example.com/x",
            "http://example.com/x#f",
            "http://exa mple.com/",
            "http://example.com/" + "x".repeat(AssignmentCallback.MAX_URL_LENGTH))) {
      RoutingException e =
          assertThrows(RoutingException.class, () -> AssignmentCallback.to(bad), bad);
      assertEquals(RoutingErrorCode.INVALID_CALLBACK_URL, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("http or https"), e.getMessage());
    }
    RoutingException e =
        assertThrows(
            RoutingException.class,
            () -> new AssignmentCallback("https://example.com/x", Duration.ofSeconds(61)));
    assertEquals(RoutingErrorCode.INVALID_ARGUMENT, e.code());
    assertEquals("https://example.com/x", AssignmentCallback.to("https://example.com/x").url());
  }

  @Test
  void secret_isMadeAtCreation_rotated_keptAcrossRestart_andNeverInToString() {
    WorkspaceStore store = WorkspaceStore.memory();
    Router defaultRouter = Router.builder().clock(clock).build();
    Workspaces all = workspaces(store, defaultRouter);
    Workspace centre =
        all.create(WorkspaceDefinition.create("centre", WorkspaceSettings.DEFAULTS, List.of()));
    CallbackSecret made = centre.definition().callbackSecret().orElseThrow();
    assertFalse(centre.definition().toString().contains(made.value()));
    centre.putQueue(TaskQueue.named("general"));
    Workspace.PutWorkflow put =
        centre.putWorkflow(support(Optional.of(AssignmentCallback.to("https://example.com/o"))));
    assertEquals(Optional.empty(), put.newSecret(), "the workspace had one");
    CallbackSecret rotated = centre.rotateCallbackSecret();
    assertNotEquals(made, rotated);

    Workspace dflt = all.get(Workspaces.DEFAULT);
    dflt.putQueue(TaskQueue.named("general"));
    assertEquals(Optional.empty(), dflt.putWorkflow(support(Optional.empty())).newSecret());
    CallbackSecret first =
        dflt.putWorkflow(support(Optional.of(AssignmentCallback.to("http://localhost:9/o"))))
            .newSecret()
            .orElseThrow();
    all.close();

    Workspaces again = workspaces(store, defaultRouter);
    assertEquals(Optional.of(rotated), again.get("centre").definition().callbackSecret());
    assertEquals(Optional.of(first), again.get(Workspaces.DEFAULT).definition().callbackSecret());
    assertEquals(
        Optional.of(AssignmentCallback.to("https://example.com/o")),
        again.get("centre").workflowNamed("support").assignmentCallback());
    again.close();
    defaultRouter.close();
  }

  @Test
  void codec_readsDefinitionsWrittenBeforeCallbacks_andRoundTripsThem() {
    WorkspaceDefinition d =
        WorkspaceDefinition.create("centre", WorkspaceSettings.DEFAULTS, List.of())
            .withQueue(TaskQueue.named("general"))
            .withWorkflow(
                support(
                    Optional.of(
                        new AssignmentCallback("https://example.com/o", Duration.ofSeconds(9)))))
            .withCallbackSecret(Optional.of(CallbackSecret.generate()));
    assertEquals(d, WorkspaceCodec.decode(WorkspaceCodec.encode(d)));

    // a definition stored by a build before callbacks: everything up to the workflows
    WorkspaceDefinition plain =
        d.withWorkflow(support(Optional.empty())).withCallbackSecret(Optional.empty());
    byte[] now = WorkspaceCodec.encode(plain);
    // workflow count, its url (null) and timeout, the secret (null); then the settings of later
    // (miss limit, auto-accept, window, rest, reject and timeout activities: 4 + 4 + 8 + 8 + 4 + 4)
    int tail = 4 + 4 + 8 + 4 + 32;
    byte[] old = java.util.Arrays.copyOf(now, now.length - tail);
    assertEquals(plain, WorkspaceCodec.decode(old));
  }
}
