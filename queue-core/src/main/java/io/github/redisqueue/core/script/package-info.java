/**
 * The contract with Redis: running the Lua scripts ({@code QueueScriptExecutor}), the keys of a
 * queue ({@code QueueKeys}), the encoding of script arguments ({@code ScriptArgs}), the decoding of
 * script replies ({@code ScriptReplies} for the job lifecycle, {@code InspectReplies} for
 * inspection and administration), the prelude each script keeps ({@code ScriptPrelude}), the
 * registry of queue names ({@code QueueRegistration}) and the key layout migration
 * ({@code LayoutMigration}).
 *
 * <p><b>Internal: not API, may change without notice.</b> Only the engine (the other packages
 * under {@code io.github.redisqueue.core}) uses it; the parts below the template never reach back
 * to {@link io.github.redisqueue.core.QueueTemplate} or {@link io.github.redisqueue.core.QueueAdmin}.
 */
@NullMarked
package io.github.redisqueue.core.script;

import org.jspecify.annotations.NullMarked;
