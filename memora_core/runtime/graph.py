"""The node-graph definition (launch/graph.yaml): launch arguments, nodes, their parameter files.

Parameter file names and node arguments may contain `{argument}` placeholders filled from the launch
arguments; a node may carry `when: {argument: value}` to run only for that value (e.g. the Unitree sim
bridge only for robot=g1, g1_bridge=sim), and so may a parameter file (`{file: ..., when: {...}}`). Both
the ROS 2 launch file and the pip-only supervisor call `GraphDef.nodes_for(values)` and `param_files`, so
the two cannot start different graphs.
"""
from __future__ import annotations

import os
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memora_core.runtime.config import SupervisorConfig

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ArgumentDef(_Model):
    default: str
    description: str = ""
    choices: list[str] | None = None

    @model_validator(mode="after")
    def _default_allowed(self) -> "ArgumentDef":
        if self.choices is not None and self.default not in self.choices:
            raise ValueError(f"default {self.default!r} is not one of the choices {self.choices}")
        return self


class ParamFile(_Model):
    """A parameter file used only for some argument values (e.g. the sim bridge's DDS settings only for
    robot=g1 with g1_bridge=sim): a plain file name in `params` is always used."""

    file: str
    when: dict[str, str]


class NodeDef(_Model):
    name: str
    package: str = "memora"
    executable: str
    params: list[str | ParamFile] = Field(default_factory=list)  # file names in the params dir; may hold {arg}
    args: list[str] = Field(default_factory=list)  # extra command-line arguments; may hold {arg}
    set: dict[str, str] = Field(default_factory=dict)  # parameter overrides; values may hold {arg}
    when: dict[str, str] = Field(default_factory=dict)
    required: bool = True  # a required node that exits non-zero ends the graph with an error
    ends_graph: bool = False  # when this node exits 0 the whole graph shuts down cleanly (a driver)

    @field_validator("name")
    @classmethod
    def _ros_name(cls, v: str) -> str:
        if not v or not set(v) <= _NAME_CHARS or v[0].isdigit():
            raise ValueError(f"node name {v!r} must be lower-case letters, digits and '_' (not leading digit)")
        return v


class ProcessSpec(_Model):
    """One process the supervisor starts: fully resolved, nothing left to interpret."""

    name: str
    argv: list[str]
    required: bool = True
    ends_graph: bool = False


class GraphDef(_Model):
    package: str = "memora"
    arguments: dict[str, ArgumentDef] = Field(default_factory=dict)
    nodes: list[NodeDef]
    params_dirs: list[str] = Field(default_factory=lambda: ["../robot_configs/ros", "../config"])
    supervisor: SupervisorConfig = Field(default_factory=SupervisorConfig)
    source: Path | None = None  # the file this graph was read from (set by load_graph)

    @model_validator(mode="after")
    def _unique_names(self) -> "GraphDef":
        names = [n.name for n in self.nodes]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"node names must be unique; repeated: {dupes}")
        for node in self.nodes:
            whens = [node.when, *(p.when for p in node.params if isinstance(p, ParamFile))]
            unknown = set().union(*whens) - set(self.arguments)
            if unknown:
                raise ValueError(f"node {node.name}: 'when' names unknown arguments {sorted(unknown)}")
        return self

    def argument_values(self, overrides: dict[str, str] | None = None) -> dict[str, str]:
        """Defaults updated by overrides; unknown names and values outside `choices` are errors."""
        overrides = overrides or {}
        unknown = set(overrides) - set(self.arguments)
        if unknown:
            raise ValueError(f"unknown launch arguments {sorted(unknown)}; known: {sorted(self.arguments)}")
        values = {name: arg.default for name, arg in self.arguments.items()} | overrides
        for name, value in values.items():
            choices = self.arguments[name].choices
            if choices is not None and value not in choices:
                raise ValueError(f"launch argument {name}={value!r} must be one of {choices}")
        return values

    def nodes_for(self, values: dict[str, str]) -> list[NodeDef]:
        return [n for n in self.nodes if _applies(n.when, values)]

    def params_dir(self) -> Path:
        """The first existing params dir, relative to the graph file (repo layout, then installed layout)."""
        base = self.source.parent if self.source else Path.cwd()
        for rel in self.params_dirs:
            cand = (base / rel).resolve()
            if cand.is_dir():
                return cand
        raise FileNotFoundError(f"no params dir among {self.params_dirs} next to {base}")

    def param_files(self, node: NodeDef, values: dict[str, str]) -> list[Path]:
        names = [p if isinstance(p, str) else p.file for p in node.params
                 if isinstance(p, str) or _applies(p.when, values)]
        files = [self.params_dir() / _fill(p, values, node.name) for p in names]
        missing = [str(f) for f in files if not f.is_file()]
        if missing:
            raise FileNotFoundError(f"node {node.name}: parameter files missing: {missing}")
        return files

    def node_args(self, node: NodeDef, values: dict[str, str]) -> list[str]:
        return [_fill(a, values, node.name) for a in node.args]

    def param_overrides(self, node: NodeDef, values: dict[str, str]) -> dict[str, object]:
        """`set:` values, typed the way a ROS params file would type them (YAML). An empty value or list
        means "not set": ROS cannot type an empty list, and the node keeps its own default."""
        out = {k: _typed(_fill(v, values, node.name)) for k, v in node.set.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [])}

    def process_specs(self, values: dict[str, str], prefixes: list[Path] | None = None) -> list[ProcessSpec]:
        """The command lines a pip-only machine runs: `<prefix>/lib/<pkg>/<exe> [args] --ros-args ...`."""
        specs = []
        for node in self.nodes_for(values):
            exe = resolve_executable(node.package, node.executable, prefixes)
            ros_args = ["--ros-args", "-r", f"__node:={node.name}"]
            for f in self.param_files(node, values):
                ros_args += ["--params-file", str(f)]
            for k, v in self.param_overrides(node, values).items():
                ros_args += ["-p", f"{k}:={yaml.safe_dump(v, default_flow_style=True).strip().removesuffix('...').strip()}"]
            specs.append(ProcessSpec(name=node.name, argv=[str(exe), *self.node_args(node, values), *ros_args],
                                     required=node.required, ends_graph=node.ends_graph))
        return specs


def _applies(when: dict[str, str], values: dict[str, str]) -> bool:
    return all(values.get(k) == v for k, v in when.items())


def _typed(text: str) -> object:
    """A `set:` value typed as YAML; mappings (and lists of them) stay text, since a ROS parameter cannot
    hold them: such parameters are JSON strings (e.g. tasks_json)."""
    value = yaml.safe_load(text)
    if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value)):
        return text
    return value


def _fill(template: str, values: dict[str, str], node: str) -> str:
    try:
        return template.format(**values)
    except KeyError as exc:
        raise ValueError(f"node {node}: {template!r} uses unknown argument {exc}") from exc


def load_graph(path: Path | str) -> GraphDef:
    path = Path(path)
    with path.open() as fh:
        data = yaml.safe_load(fh) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a graph definition must be a mapping")
    graph = GraphDef.model_validate(data)
    graph.source = path.resolve()
    return graph


def ament_prefixes() -> list[Path]:
    return [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]


def resolve_executable(package: str, executable: str, prefixes: list[Path] | None = None) -> Path:
    """Find `lib/<package>/<executable>` the way `ros2 run` does: via the ament index on AMENT_PREFIX_PATH."""
    prefixes = ament_prefixes() if prefixes is None else prefixes
    for prefix in prefixes:
        if (prefix / "share" / "ament_index" / "resource_index" / "packages" / package).exists():
            exe = prefix / "lib" / package / executable
            if exe.is_file() and os.access(exe, os.X_OK):
                return exe
            raise FileNotFoundError(f"package {package} (in {prefix}) has no executable {executable!r}")
    raise FileNotFoundError(
        f"package {package!r} not found on AMENT_PREFIX_PATH; build ros2_ws and `source scripts/ros_env.sh`")
