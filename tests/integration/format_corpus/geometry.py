"""Shapes and their areas, for the layout engine."""
from __future__ import annotations
import math
from abc import ABC,abstractmethod


class Shape(ABC):
    name='shape'

    @abstractmethod
    def area(self)->float: ...

    @abstractmethod
    def perimeter(self) -> float : ...

    def ratio(self):
        # area per unit of perimeter
        return self.area()/self.perimeter() if self.perimeter() else 0.0


class Circle(Shape):
    name='circle'
    def __init__(self,radius:float):
        if radius<0: raise ValueError('negative radius: %r'%radius)
        self.radius=radius
    def area(self): return math.pi*self.radius**2
    def perimeter(self):
        return 2*math.pi*self.radius


class Rectangle(Shape):
    name='rectangle'

    def __init__(self,width,height):
        self.width,self.height=width,height

    def area(self):
        return self.width*self.height

    def perimeter(self):
        return 2*(self.width+self.height)

    def scaled(self,factor,*,keep_ratio=True):
        return Rectangle(self.width*factor,
                         self.height*(factor if keep_ratio else 1))


SHAPES={'circle':Circle,'rectangle':Rectangle}


def make(kind,*args,**kwargs):
    try:
        factory=SHAPES[kind]
    except KeyError:
        raise ValueError('unknown shape %s, known: %s'%(kind,', '.join(sorted(SHAPES)))) from None
    return factory(*args,**kwargs)


def largest(shapes,key = lambda s:s.area()):
    best=None
    for shape in shapes:
        if best is None or key(shape)>key(best): best=shape
    return best


def summary(shapes):
    return {shape.name:round(shape.area(),3) for shape in shapes}
