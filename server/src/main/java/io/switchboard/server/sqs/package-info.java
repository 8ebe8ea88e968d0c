@NullMarked
package io.switchboard.server.sqs;

import org.jspecify.annotations.NullMarked;
