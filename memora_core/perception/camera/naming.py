"""Words for what the camera saw: an object's name from its seen attributes, and an action's text.

Name: the brand read on its label with its kind ("coca-cola bottle"); else, for food, the kind alone
("bread"); for metal things the material with the kind ("metal spoon"); else the colour with the kind
("orange cup"). So two look-alikes differ in the word that tells them apart."""
from __future__ import annotations


def object_name(category: str, colour: str | None, material: str | None, label: str | None) -> str:
    if label:
        return f"{label.split()[0].lower()} {category}"
    if material == "food":
        return category
    if material == "metal":
        return f"metal {category}"
    return f"{colour} {category}" if colour else category


def name_says(category: str, colour: str | None, material: str | None, label: str | None) -> set[str]:
    """The attributes `object_name` puts into the name made from these (the rest it leaves unsaid)."""
    if label:
        return {"category", "label"}
    if material in ("food", "metal"):
        return {"category", "material", "label"}
    return {"category", "colour", "label"}


def action_text(kind: str, verb: str, obj: str, target: str | None, beside: str | None, surface: str) -> str:
    if kind == "pick":
        return f"{verb} {obj}"
    if kind == "pour":
        return f"{verb} {obj} into {target}"
    where = f"in {target}" if target and target != surface else f"on {surface}"
    return f"{verb} {obj} {where}" + (f" next to {beside}" if beside else "")
