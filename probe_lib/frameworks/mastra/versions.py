"""The ``@mastra/core`` releases the kit runs: the pinned ones, and any other the npm registry serves
(:class:`~probe_lib.install.pins.Pins`, as for every framework).

Each pinned version is one harness folder, ``harness/versions/<version>/``: a ``package.json`` naming
``@mastra/core`` under the alias ``mastra-<version>`` (the name ``runner.cjs`` loads), and its committed lockfile.
Any other served version gets the same folder generated on first use, in the kit's cache (never the source tree),
then installs like a pin.

Unlike the other frameworks' served releases, a served ``@mastra/core`` is resolved as of the day its folder is
generated, not its publication (its harness names exact zod and provider versions, which an older day's registry
did not serve, and the sweep's many versions were installed that way): its ``resolved_before`` is its lockfile's
time of writing.
"""

from __future__ import annotations

from probe_lib.core import paths
from probe_lib.core.target import version_key
from probe_lib.install.pins import Pins

PACKAGE = "@mastra/core"
#: The zod every harness builds tool schemas with (satisfies every served version's zod range).
ZOD = "3.25.76"
#: 0.x builds its model from an AI SDK provider (no model router yet): the OpenAI provider of AI SDK 4.
AI_SDK_OPENAI_0X = "1.3.24"


def dependencies(version: str) -> dict[str, str]:
    """What the harness of ``version`` installs: the package under its alias, zod, and per era a model provider."""
    deps = {f"mastra-{version}": f"npm:{PACKAGE}@{version}", "zod": ZOD}
    if version_key(version)[0] == 0:
        deps["@ai-sdk/openai"] = AI_SDK_OPENAI_0X
    return deps


#: Every served release can be tried: 0.1.x has no Agent, and says so scenario by scenario ("not applicable").
PINS = Pins(
    "mastra",
    paths.HARNESS,
    "node",
    package=PACKAGE,
    requires=dependencies,
    layout="versions/{version}",
    resolution="as-of-generation",
)
